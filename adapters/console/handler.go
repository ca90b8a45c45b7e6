package console

import (
	"io/fs"
	"net/http"

	"github.com/gorilla/mux"
)

// HandlerParams are the parts of the console's handler.
type HandlerParams struct {
	Routes []Routes
	Guard  Guard
}

// NewHandler builds the console: every group of pages and actions behind
// the guard, /healthz and the static files open, every answer with the
// security headers of docs/console.md, and every state-changing request
// that is not same-origin refused with 403 before anything runs.
func NewHandler(p HandlerParams) http.Handler {
	router := mux.NewRouter()
	router.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok\n"))
	}).Methods(http.MethodGet, http.MethodHead)
	static, _ := fs.Sub(files, "static") // the embedded folder exists: the build proves it
	router.PathPrefix("/static/").Handler(http.StripPrefix("/static/", http.FileServerFS(static))).Methods(http.MethodGet, http.MethodHead)
	for _, g := range p.Routes {
		g.Register(router, p.Guard)
	}
	return withSecurityHeaders(sameOrigin(router))
}

// contentSecurityPolicy allows the console's own files only: no inline
// script or style, no framing.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " +
	"form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

func withSecurityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("Cache-Control", "no-store")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin")
		next.ServeHTTP(w, r)
	})
}

// sameOrigin refuses a state-changing request that another site sent
// (Sec-Fetch-Site cross-site or same-site, or an Origin that is not the
// console's own) with 403: the same-origin check is the defence against
// cross-site request forgery, and forms carry no token.
func sameOrigin(next http.Handler) http.Handler {
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "refused: the form was not sent from this console", http.StatusForbidden)
	}))
	return cop.Handler(next)
}
