// Command image builds the service's OCI image from a static binary without a
// container daemon or a registry (`make image` runs it) and prints the image's
// reference on stdout.
package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/acme3pl/fulfillment/deploy/image"
)

func main() {
	var o image.Options
	var out, created string
	flag.StringVar(&o.Binary, "binary", "", "the static fulfillment binary")
	flag.StringVar(&o.Version, "version", "", "the binary's version: the image's tag")
	flag.StringVar(&o.Revision, "revision", "", "the source commit (label)")
	flag.StringVar(&o.Repository, "repository", "localhost/fulfillment", "the image's name, without the tag")
	flag.StringVar(&o.Source, "source", "https://github.com/acme3pl/fulfillment", "the source repository (label)")
	flag.StringVar(&o.CACerts, "ca-certs", "/etc/ssl/certs/ca-certificates.crt", "the CA certificates to include")
	flag.StringVar(&created, "created", "0", "creation time, in seconds since 1970 (SOURCE_DATE_EPOCH)")
	flag.StringVar(&out, "out", "", "the OCI archive to write")
	flag.Parse()
	secs, err := strconv.ParseInt(created, 10, 64)
	if err != nil || o.Binary == "" || out == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: image -binary PATH -version V -out FILE.tar [-revision SHA] [-created SECONDS] [-repository NAME]")
		os.Exit(2)
	}
	o.Created = time.Unix(secs, 0)
	ref, err := image.Build(o, out)
	if err != nil {
		fmt.Fprintf(os.Stderr, "image: %v\n", err)
		os.Exit(1)
	}
	fmt.Println(ref)
}
