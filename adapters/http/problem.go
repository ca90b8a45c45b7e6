package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"

	"go.opentelemetry.io/otel/trace"

	"github.com/acme3pl/fulfillment/domain"
)

// Problem is an RFC 9457 problem document with the machine code of
// CONTRACT §2 and optional members.
type Problem struct {
	Type      string `json:"type"`
	Title     string `json:"title"`
	Status    int    `json:"status"`
	Detail    string `json:"detail,omitempty"`
	Code      string `json:"code"`
	Parameter string `json:"parameter,omitempty"`
	TraceID   string `json:"traceId,omitempty"`
	// Extra members some codes carry (for example items of
	// insufficient_stock); merged into the document.
	Extra map[string]any `json:"-"`
}

// MarshalJSON merges Extra into the document.
func (p Problem) MarshalJSON() ([]byte, error) {
	type plain Problem
	if len(p.Extra) == 0 {
		return json.Marshal(plain(p))
	}
	b, err := json.Marshal(plain(p))
	if err != nil {
		return nil, err
	}
	m := map[string]any{}
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	for k, v := range p.Extra {
		if _, taken := m[k]; !taken {
			m[k] = v
		}
	}
	return json.Marshal(m)
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
	if p.Status == http.StatusServiceUnavailable && w.Header().Get("Retry-After") == "" {
		w.Header().Set("Retry-After", "5")
	}
	w.Header().Set("Content-Type", "application/problem+json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(p.Status)
	_ = json.NewEncoder(w).Encode(p)
}

// ErrorMapper turns errors of the application into problems; it logs each
// error of the system (5xx) once, with its trace ID. Refusals of the domain
// (4xx) are not logged here: the access log has them.
type ErrorMapper struct {
	Log *slog.Logger
}

// ProblemFor maps an error to its problem without writing it.
func ProblemFor(err error) Problem {
	var ve *domain.ValidationError
	var ui *domain.UnknownItemsError
	var is *domain.InsufficientStockError
	switch {
	case errors.As(err, &ve):
		p := NewProblem(http.StatusBadRequest, "invalid_parameter", ve.Error())
		p.Parameter = ve.Field
		return p
	case errors.As(err, &ui):
		p := NewProblem(http.StatusUnprocessableEntity, "unknown_items", "these "+string(ui.Kind)+"s are not records of the organization")
		p.Extra = map[string]any{"ids": ui.IDs}
		return p
	case errors.As(err, &is):
		p := NewProblem(http.StatusUnprocessableEntity, "insufficient_stock", "the warehouse does not hold enough of these cartons; nothing was reserved")
		p.Extra = map[string]any{"items": shortageDTOs(is.Items)}
		return p
	case errors.Is(err, domain.ErrInvalidWarehouse):
		return NewProblem(http.StatusUnprocessableEntity, "invalid_warehouse", "warehouseId is not an active warehouse of the organization")
	case errors.Is(err, domain.ErrNotFound):
		return NewProblem(http.StatusNotFound, "not_found", "the record does not exist")
	case errors.Is(err, domain.ErrInvalidState):
		return NewProblem(http.StatusConflict, "invalid_state", strings.TrimSuffix(err.Error(), ": "+domain.ErrInvalidState.Error()))
	case errors.Is(err, domain.ErrUnavailable), errors.Is(err, context.DeadlineExceeded):
		return NewProblem(http.StatusServiceUnavailable, "unavailable", "the database cannot be reached; retry later")
	}
	return NewProblem(http.StatusInternalServerError, "internal", "an internal error occurred; quote the trace ID to support")
}

// Write maps err and writes it.
func (m ErrorMapper) Write(w http.ResponseWriter, r *http.Request, err error) {
	p := ProblemFor(err)
	if p.Status >= 500 && !errors.Is(err, context.Canceled) {
		m.Log.ErrorContext(r.Context(), "request failed", slog.String("error", err.Error()),
			slog.String("method", r.Method), slog.String("path", r.URL.Path))
	}
	WriteProblem(w, r, p)
}

// WriteJSON writes v as application/json with status.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
