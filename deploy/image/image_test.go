package image_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/deploy/image"
)

// staticBinary builds a tiny static Go program to stand in for the service.
func staticBinary(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(dir, "main.go")
	if err := os.WriteFile(src, []byte("package main\n\nfunc main() {}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "app")
	cmd := exec.Command("go", "build", "-o", bin, src)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func options(bin string) image.Options {
	return image.Options{Binary: bin, CACerts: "/etc/ssl/certs/ca-certificates.crt", Repository: "localhost/fulfillment",
		Version: "v1.2.3-4-gabcdef0-dirty", Source: "https://example.com/fulfillment", Created: time.Unix(1_700_000_000, 0)}
}

// The same inputs give the same archive, byte for byte.
func TestBuildIsReproducible(t *testing.T) {
	o := options(staticBinary(t))
	dir := t.TempDir()
	var archives [2][]byte
	for i := range archives {
		out := filepath.Join(dir, "image.tar")
		ref, err := image.Build(o, out)
		if err != nil {
			t.Fatal(err)
		}
		if ref != "localhost/fulfillment:v1.2.3-4-gabcdef0-dirty" {
			t.Fatalf("ref %q", ref)
		}
		if archives[i], err = os.ReadFile(out); err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(out); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(archives[0], archives[1]) {
		t.Fatal("two builds of the same inputs differ")
	}
}

func TestBuildRefuses(t *testing.T) {
	static := staticBinary(t)
	for name, tc := range map[string]struct {
		mutate func(*image.Options)
		want   string
	}{
		"a dynamically linked binary":   {func(o *image.Options) { o.Binary = "/bin/ls" }, "dynamically linked"},
		"a file that is no binary":      {func(o *image.Options) { o.Binary = "/etc/passwd" }, "binary"},
		"a version that is no tag":      {func(o *image.Options) { o.Version = "1.0+build/5" }, "not a valid image tag"},
		"a version starting with a dot": {func(o *image.Options) { o.Version = ".1" }, "not a valid image tag"},
		"missing CA certificates":       {func(o *image.Options) { o.CACerts = "/nonexistent.crt" }, "ca-certificates"},
	} {
		t.Run(name, func(t *testing.T) {
			o := options(static)
			tc.mutate(&o)
			out := filepath.Join(t.TempDir(), "image.tar")
			_, err := image.Build(o, out)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Build: %v, want an error containing %q", err, tc.want)
			}
			if _, statErr := os.Stat(out); !os.IsNotExist(statErr) {
				t.Fatalf("a refused build left %s behind", out)
			}
		})
	}
}
