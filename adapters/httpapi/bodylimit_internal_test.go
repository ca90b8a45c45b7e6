package httpapi

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestBodyLimit(t *testing.T) {
	const limit = 16
	tests := []struct {
		name          string
		body          string
		contentLength int64 // -1: unknown length (chunked)
		wantStatus    int
		wantCode      string
	}{
		{"declared length over the limit", strings.Repeat("x", limit+1), limit + 1, http.StatusRequestEntityTooLarge, "payload_too_large"},
		{"unknown length over the limit", strings.Repeat("x", limit+1), -1, http.StatusRequestEntityTooLarge, "payload_too_large"},
		{"exactly the limit", strings.Repeat("x", limit), limit, http.StatusOK, ""},
		{"empty", "", 0, http.StatusOK, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The handler reads the whole body, answering 413 when the
			// reader says it is over the limit, as the JSON handlers do.
			h := withBodyLimit(limit, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if _, err := io.ReadAll(r.Body); err != nil {
					var tooLarge *http.MaxBytesError
					if !errors.As(err, &tooLarge) {
						t.Errorf("read error %v, want *http.MaxBytesError", err)
					}
					WriteProblem(w, r, NewProblem(http.StatusRequestEntityTooLarge, "payload_too_large", "too large"))
					return
				}
				w.WriteHeader(http.StatusOK)
			}))
			r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(tt.body))
			r.ContentLength = tt.contentLength
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)

			if w.Code != tt.wantStatus {
				t.Fatalf("status = %d, want %d", w.Code, tt.wantStatus)
			}
			if tt.wantCode == "" {
				return
			}
			var p Problem
			if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil {
				t.Fatalf("body is not a problem: %v: %s", err, w.Body.String())
			}
			if p.Code != tt.wantCode || w.Header().Get("Content-Type") != "application/problem+json" {
				t.Errorf("problem %+v with Content-Type %q, want code %s as application/problem+json",
					p, w.Header().Get("Content-Type"), tt.wantCode)
			}
		})
	}
}

// A declared length over the limit is refused before the handler runs: the
// body is never read.
func TestBodyLimitRefusesBeforeTheHandler(t *testing.T) {
	ran := false
	h := withBodyLimit(16, http.HandlerFunc(func(http.ResponseWriter, *http.Request) { ran = true }))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/", strings.NewReader(strings.Repeat("x", 17))))
	if w.Code != http.StatusRequestEntityTooLarge || ran {
		t.Errorf("status %d, handler ran %v; want 413 without running the handler", w.Code, ran)
	}
}
