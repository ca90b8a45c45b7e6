package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"
)

// probeTimeout bounds one probe: as long as a Kubernetes probe waits.
const probeTimeout = 3 * time.Second

// probe is `fulfillment probe URL`: one GET of an http(s) URL, success when
// it answers 200. The image holds nothing but this binary, so the chart's
// `helm test` hook checks a release's Service with it.
func probe(ctx context.Context, args []string, stdout io.Writer) error {
	if len(args) != 1 {
		return usagef("probe takes one http(s) URL")
	}
	u, err := url.Parse(args[0])
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return usagef("probe: %q is not an http(s) URL", args[0])
	}
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil) //nolint:gosec // the operator's own URL is the command's argument
	if err != nil {
		return usagef("probe: %v", err)
	}
	resp, err := http.DefaultClient.Do(req) //nolint:gosec // the operator's own URL is the command's argument
	if err != nil {
		return fmt.Errorf("probe %s: %w", u.Redacted(), err)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("probe %s: %s, want 200", u.Redacted(), resp.Status)
	}
	fmt.Fprintf(stdout, "%s: %s\n", u.Redacted(), resp.Status)
	return nil
}
