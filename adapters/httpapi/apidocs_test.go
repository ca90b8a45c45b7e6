package httpapi_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gorilla/mux"

	"github.com/acme3pl/fulfillment/adapters/httpapi"
)

func TestAPIDocsRevalidation(t *testing.T) {
	docs, err := httpapi.NewAPIDocs()
	if err != nil {
		t.Fatal(err)
	}
	r := mux.NewRouter()
	docs.Register(r)
	get := func(path string, kv ...string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		for i := 0; i+1 < len(kv); i += 2 {
			req.Header.Set(kv[i], kv[i+1])
		}
		rec := httptest.NewRecorder()
		r.ServeHTTP(rec, req)
		return rec
	}
	for _, path := range []string{"/openapi.yaml", "/openapi.json", "/docs", "/docs/redoc.standalone.js"} {
		first := get(path)
		etag := first.Header().Get("ETag")
		if first.Code != 200 || etag == "" || first.Body.Len() == 0 || first.Header().Get("Cache-Control") == "" {
			t.Fatalf("%s: %d, ETag %q, %d bytes", path, first.Code, etag, first.Body.Len())
		}
		for _, inm := range []string{etag, "W/" + etag, `"other", ` + etag, "*"} {
			if rec := get(path, "If-None-Match", inm); rec.Code != http.StatusNotModified || rec.Body.Len() != 0 ||
				rec.Header().Get("ETag") != etag || rec.Header().Get("Content-Type") != "" {
				t.Errorf("%s with If-None-Match %s: %d %v", path, inm, rec.Code, rec.Header())
			}
		}
		if rec := get(path, "If-None-Match", `"other"`); rec.Code != 200 {
			t.Errorf("%s with another ETag: %d, want 200", path, rec.Code)
		}
	}
	page := get("/docs")
	csp := page.Header().Get("Content-Security-Policy")
	if !strings.Contains(csp, "default-src 'none'") || strings.Contains(csp, "http") {
		t.Fatalf("Content-Security-Policy %q", csp)
	}
	script := get("/docs/redoc.standalone.js").Header().Get("ETag")
	if !strings.Contains(page.Body.String(), `src="docs/redoc.standalone.js?v=`+strings.Trim(script, `"`)+`"`) {
		t.Fatalf("the page does not load the script by its version:\n%s", page.Body)
	}
}
