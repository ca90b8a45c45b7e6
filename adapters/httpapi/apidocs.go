package httpapi

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"html/template"
	"net/http"
	"strconv"
	"strings"

	"github.com/gorilla/mux"

	"github.com/acme3pl/fulfillment/api"
)

// The paths of the interface document and its reference page. The page refers to the others
// relatively, so it also works behind a path prefix.
const (
	openAPIYAMLPath = "/openapi.yaml"
	openAPIJSONPath = "/openapi.json"
	docsPath        = "/docs"
	docsScriptPath  = "/docs/redoc.standalone.js"
)

// docsPolicy lets the reference page load only what this service serves: its script, the
// document it fetches, the styles and the search worker Redoc makes at run time, and inline
// images. Nothing reaches another host.
const docsPolicy = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
	"font-src 'self' data:; connect-src 'self'; worker-src 'self' blob:; base-uri 'none'; form-action 'none'; " +
	"frame-ancestors 'none'"

// docsPage renders api/openapi.yaml with Redoc. Redoc starts on the <redoc> element by itself
// once its script runs, so the page needs no inline script; no font is fetched (the system's
// sans-serif is used).
var docsPage = template.Must(template.New("docs").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Fulfillment API reference</title>
</head>
<body>
<redoc spec-url="{{.Spec}}" required-props-first="true" expand-responses="200,201"></redoc>
<script src="{{.Script}}"></script>
</body>
</html>
`))

// asset is one immutable answer of the documentation routes, with the ETag that lets clients
// revalidate it.
type asset struct {
	body         []byte
	contentType  string
	cacheControl string
	etag         string
	headers      map[string]string // more headers of the 200 answer
}

func newAsset(body []byte, contentType, cacheControl string, headers map[string]string) asset {
	sum := sha256.Sum256(body)
	return asset{body: body, contentType: contentType, cacheControl: cacheControl,
		etag: `"` + hex.EncodeToString(sum[:16]) + `"`, headers: headers}
}

// ServeHTTP answers 304 when If-None-Match names the asset's ETag, else 200 with the body.
func (a asset) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Cache-Control", a.cacheControl)
	h.Set("ETag", a.etag)
	if etagMatches(r.Header.Get("If-None-Match"), a.etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	for k, v := range a.headers {
		h.Set(k, v)
	}
	h.Set("Content-Type", a.contentType)
	h.Set("Content-Length", strconv.Itoa(len(a.body)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(a.body)
}

// etagMatches tells whether an If-None-Match header names etag (weak comparison, RFC 9110
// §13.1.2).
func etagMatches(ifNoneMatch, etag string) bool {
	for tag := range strings.SplitSeq(ifNoneMatch, ",") {
		tag = strings.TrimPrefix(strings.TrimSpace(tag), "W/")
		if tag == "*" || tag == etag {
			return true
		}
	}
	return false
}

// APIDocs serves the interface document (GET /openapi.yaml, and the same document as GET
// /openapi.json) and its reference page (GET /docs and the page's script), all embedded in
// the binary. They take no credentials.
type APIDocs struct {
	yaml, json, page, script asset
}

// NewAPIDocs converts the document to JSON once and renders the page; an error means the
// embedded document is broken, and stops start-up.
func NewAPIDocs() (*APIDocs, error) {
	doc, err := api.JSON()
	if err != nil {
		return nil, err
	}
	script := newAsset(api.RedocScript(), "text/javascript; charset=utf-8", "public, max-age=31536000, immutable",
		map[string]string{"X-Content-Type-Options": "nosniff"})
	// The script's URL carries its ETag, so that a new renderer is fetched at once even where
	// the old one is cached for a year.
	var page bytes.Buffer
	err = docsPage.Execute(&page, map[string]string{
		"Spec":   strings.TrimPrefix(openAPIJSONPath, "/"),
		"Script": strings.TrimPrefix(docsScriptPath, "/") + "?v=" + strings.Trim(script.etag, `"`),
	})
	if err != nil {
		return nil, err
	}
	return &APIDocs{
		yaml: newAsset(api.YAML(), "application/yaml", "no-cache", nil),
		json: newAsset(doc, "application/json", "no-cache", nil),
		page: newAsset(page.Bytes(), "text/html; charset=utf-8", "no-cache", map[string]string{
			"Content-Security-Policy": docsPolicy,
			"Referrer-Policy":         "no-referrer",
			"X-Content-Type-Options":  "nosniff",
		}),
		script: script,
	}, nil
}

// Register implements Routes.
func (h *APIDocs) Register(r *mux.Router) {
	r.Handle(openAPIYAMLPath, h.yaml).Methods(http.MethodGet)
	r.Handle(openAPIJSONPath, h.json).Methods(http.MethodGet)
	r.Handle(docsPath, h.page).Methods(http.MethodGet)
	r.Handle(docsScriptPath, h.script).Methods(http.MethodGet)
}
