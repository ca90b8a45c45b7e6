// Command pause is the pod sandbox's process for the cluster test (nothing can
// be pulled here): it waits for SIGTERM or SIGINT and exits.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGTERM, syscall.SIGINT)
	<-c
}
