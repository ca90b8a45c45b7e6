package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// `fulfillment probe URL`: exit 0 on 200 (one line on stdout), 1 on any
// other answer or none, 2 for a missing or non-http(s) URL; it needs no
// settings at all (the chart's test hook passes none).
func TestProbe(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/readyz" {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	defer srv.Close()
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()

	for _, tc := range []struct {
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{[]string{"probe", srv.URL + "/readyz"}, exitOK, srv.URL + "/readyz: 200 OK\n", ""},
		{[]string{"probe", srv.URL + "/other"}, exitFailure, "", "503 Service Unavailable, want 200"},
		{[]string{"probe", closed.URL + "/readyz"}, exitFailure, "", "connection refused"},
		{[]string{"probe"}, exitUsage, "", "probe takes one http(s) URL"},
		{[]string{"probe", "ftp://example.com/"}, exitUsage, "", "is not an http(s) URL"},
		{[]string{"probe", srv.URL, srv.URL}, exitUsage, "", "probe takes one http(s) URL"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), tc.args, map[string]string{}, &stdout, &stderr)
		if code != tc.code || stdout.String() != tc.stdout || !strings.Contains(stderr.String(), tc.stderr) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit %d, stdout %q, stderr with %q",
				tc.args, code, stdout.String(), stderr.String(), tc.code, tc.stdout, tc.stderr)
		}
	}
}
