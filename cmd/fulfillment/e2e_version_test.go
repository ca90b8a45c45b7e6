package main

import (
	"testing"

	"github.com/acme3pl/fulfillment/bootstrap"
	"github.com/acme3pl/fulfillment/cmd/fulfillment/internal/e2e"
)

// `fulfillment version` prints the version and nothing else, before any
// setting is read: it works with an empty environment and with an invalid one.
func TestVersionNeedsNoConfiguration(t *testing.T) {
	for name, env := range map[string][]string{
		"empty environment":   {},
		"invalid environment": {"ENVIRONMENT=staging", "DATABASE_URL=mysql://x", "HTTP_ADDR=nope"},
	} {
		t.Run(name, func(t *testing.T) {
			r := e2e.RunCLI(t, env, "version")
			if r.Code != exitOK || r.Stdout != bootstrap.Version+"\n" || r.Stderr != "" {
				t.Fatalf("version: exit %d, stdout %q, stderr %q; want exit 0, stdout %q and nothing on stderr",
					r.Code, r.Stdout, r.Stderr, bootstrap.Version+"\n")
			}
		})
	}
	if r := e2e.RunCLI(t, nil, "version", "extra"); r.Code != exitUsage {
		t.Fatalf("version extra: exit %d, want %d", r.Code, exitUsage)
	}
}
