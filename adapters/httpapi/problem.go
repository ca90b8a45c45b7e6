package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"go.opentelemetry.io/otel/trace"

	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/shipping"
	accessports "github.com/acme3pl/fulfillment/ports/access"
)

// Problem is an RFC 9457 problem document with the machine code of
// api/openapi.yaml and the extension members some codes carry.
type Problem struct {
	Type      string `json:"type"`
	Title     string `json:"title"`
	Status    int    `json:"status"`
	Detail    string `json:"detail,omitempty"`
	Code      string `json:"code"`
	Parameter string `json:"parameter,omitempty"`
	TraceID   string `json:"traceId,omitempty"`
	// IDs are the records of unknown_items.
	IDs []string `json:"ids,omitempty"`
	// Items are the shortages of insufficient_stock.
	Items []shortageDTO `json:"items,omitempty"`
}

// NewProblem builds a problem with the standard title of status.
func NewProblem(status int, code, detail string) Problem {
	return Problem{Type: "about:blank", Title: http.StatusText(status), Status: status, Code: code, Detail: detail}
}

// WriteProblem writes p as application/problem+json.
func WriteProblem(w http.ResponseWriter, r *http.Request, p Problem) {
	if p.TraceID == "" {
		if sc := trace.SpanContextFromContext(r.Context()); sc.HasTraceID() {
			p.TraceID = sc.TraceID().String()
		}
	}
	SetRetryAfter(w, p.Status)
	w.Header().Set("Content-Type", "application/problem+json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(p.Status)
	_ = json.NewEncoder(w).Encode(p)
}

// ErrorMapper turns errors of the application into problems; it logs each
// fault of the service (5xx) once, with its trace ID. Refusals of the
// request (4xx) and clients that went away (499) are not logged here: the
// access log has them.
type ErrorMapper struct {
	Log *slog.Logger
}

// ProblemFor maps an error to its problem (AnswerFor of its kind) without
// writing it. The detail is the kind's sentence, or the domain's own words
// where the domain wrote them for the client; some codes carry members that
// explain them.
func ProblemFor(err error) Problem {
	a := AnswerFor(application.KindOf(err))
	p := NewProblem(a.Status, a.Problem, a.Detail)
	var (
		ve *domain.ValidationError
		ui *shipping.UnknownItemsError
		is *shipping.InsufficientStockError
		os *shipping.OnHandShortageError
		se *accessports.InsufficientScopeError
	)
	switch {
	case errors.As(err, &ve):
		p.Detail, p.Parameter = ve.Error(), ve.Field
	case errors.As(err, &ui):
		p.Detail = "these " + string(ui.Kind) + "s are not records of the organization"
		if ui.Kind == "" { // both kinds (a warehouse receipt)
			p.Detail = "these items are not products or cartons of the organization"
		}
		p.IDs = ui.IDs
	case errors.As(err, &is):
		p.Items = shortageDTOs(shipping.KindCarton, is.Items)
	case errors.As(err, &os):
		p.Items = shortageDTOs(os.Kind, os.Items)
	case errors.As(err, &se):
		p.Detail = "the token " + se.Error()
	case errors.Is(err, domain.ErrInvalidState):
		p.Detail = strings.TrimSuffix(err.Error(), ": "+domain.ErrInvalidState.Error())
	}
	return p
}

// Write maps err and writes it. A 401 or 403 carries the WWW-Authenticate
// challenge of RFC 6750.
func (m ErrorMapper) Write(w http.ResponseWriter, r *http.Request, err error) {
	p := ProblemFor(err)
	var se *accessports.InsufficientScopeError
	switch {
	case errors.As(err, &se):
		w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer realm="fulfillment", error="insufficient_scope", scope="%s"`,
			strings.Join(ScopeNames(se.Missing), " ")))
	case p.Status == http.StatusUnauthorized:
		w.Header().Set("WWW-Authenticate", `Bearer realm="fulfillment", error="invalid_token"`)
	}
	NoteError(m.Log, r, err)
	WriteProblem(w, r, p)
}

func ScopeNames(scopes []domain.Scope) []string {
	names := make([]string, len(scopes))
	for i, s := range scopes {
		names[i] = string(s)
	}
	return names
}

// NoteError records the kind of error a request is answered with (the
// access log and the metrics read it) and logs a fault of the service once,
// with the request's trace ID (the context carries it). Refusals and clients
// that went away are not faults; shed requests are counted, not logged one
// by one (the access log has them).
func NoteError(log *slog.Logger, r *http.Request, err error) {
	k := application.KindOf(err)
	recordFrom(r.Context()).setError(k)
	if k.Fault() && k != domain.KindShed {
		log.ErrorContext(r.Context(), "request failed", slog.String("error", err.Error()), slog.String("kind", string(k)),
			slog.String("method", r.Method), slog.String("path", r.URL.Path))
	}
}

// RetryAfter is the Retry-After of every 503, in seconds: long enough for a
// database restart or a burst to pass, short against a storefront's retry
// schedule.
const RetryAfter = "5"

// SetRetryAfter sets Retry-After on a 503 that has none yet.
func SetRetryAfter(w http.ResponseWriter, status int) {
	if status == http.StatusServiceUnavailable && w.Header().Get("Retry-After") == "" {
		w.Header().Set("Retry-After", RetryAfter)
	}
}

// WriteJSON writes v as application/json with status.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
