package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/acme3pl/fulfillment/adapters/httpapi"
	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/intake"
	"github.com/acme3pl/fulfillment/domain/shipping"
)

// leakyText stands for internals an error may carry: none of it may reach a
// client.
const leakyText = "SELECT * FROM secret WHERE password = 'hunter2'"

func TestProblemFor(t *testing.T) {
	tests := []struct {
		name          string
		err           error
		wantStatus    int
		wantCode      string
		wantParameter string
		wantDetail    string
	}{
		{"validation error", domain.Invalid("take", "must be an integer from 1 to 10"),
			400, "invalid_parameter", "take", "invalid take: must be an integer from 1 to 10"},
		{"wrapped validation error", fmt.Errorf("list invoices: %w", domain.Invalid("sortBy", "bad")),
			400, "invalid_parameter", "sortBy", "invalid sortBy: bad"},
		{"not found", domain.ErrNotFound, 404, "not_found", "", "the record does not exist"},
		{"wrapped not found", fmt.Errorf("load invoice inv_1 (%s): %w", leakyText, domain.ErrNotFound),
			404, "not_found", "", "the record does not exist"},
		{"invalid state", fmt.Errorf("shipment is cancelled: %w", domain.ErrInvalidState),
			409, "invalid_state", "", "shipment is cancelled"},
		{"unavailable", fmt.Errorf("query (%s): %w", leakyText, domain.ErrUnavailable),
			503, "unavailable", "", "the database cannot be reached; retry later"},
		{"deadline", fmt.Errorf("query: %w", context.DeadlineExceeded),
			503, "unavailable", "", "the request could not be answered in time; retry later"},
		{"timeout", fmt.Errorf("lock (%s): %w", leakyText, domain.ErrTimeout),
			503, "unavailable", "", "the request could not be answered in time; retry later"},
		{"shed", application.ErrOverloaded, 503, "unavailable", "", "the service is overloaded; retry later"},
		{"conflict", fmt.Errorf("insert (%s): %w", leakyText, domain.ErrConflict),
			409, "conflict", "", "a record with this identity exists already"},
		{"client gone", fmt.Errorf("query: %w", context.Canceled),
			499, "client_closed_request", "", "the client closed the connection before the answer"},
		{"unknown", errors.New(leakyText),
			500, "internal", "", "an internal error occurred; quote the trace ID to support"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := httpapi.ProblemFor(tt.err)
			want := httpapi.Problem{Type: "about:blank", Title: http.StatusText(tt.wantStatus), Status: tt.wantStatus,
				Code: tt.wantCode, Parameter: tt.wantParameter, Detail: tt.wantDetail}
			if !reflect.DeepEqual(p, want) {
				t.Errorf("ProblemFor(%v) =\n %+v, want\n %+v", tt.err, p, want)
			}
		})
	}
}

// ErrorMapper.Write is what handlers call: the written problem, its headers,
// and the log line of a 5xx.
func TestErrorMapperWrite(t *testing.T) {
	tests := []struct {
		name           string
		err            error
		wantStatus     int
		wantCode       string
		wantRetryAfter string
		wantLogged     bool
	}{
		{"validation", domain.Invalid("skip", "bad"), 400, "invalid_parameter", "", false},
		{"not found", domain.ErrNotFound, 404, "not_found", "", false},
		{"invalid state", domain.ErrInvalidState, 409, "invalid_state", "", false},
		{"payload not kept", fmt.Errorf("replay order 7: %w", intake.ErrPayloadNotKept), 409, "payload_not_kept", "", false},
		{"unavailable", fmt.Errorf("dial (%s): %w", leakyText, domain.ErrUnavailable), 503, "unavailable", "5", true},
		{"unknown", errors.New(leakyText), 500, "internal", "", true},
		{"conflict", domain.ErrConflict, 409, "conflict", "", false},
		{"timeout", fmt.Errorf("lock (%s): %w", leakyText, domain.ErrTimeout), 503, "unavailable", "5", true},
		{"client gone", context.Canceled, 499, "client_closed_request", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs bytes.Buffer
			m := httpapi.ErrorMapper{Log: slog.New(slog.NewJSONHandler(&logs, nil))}
			w := httptest.NewRecorder()
			m.Write(w, httptest.NewRequest(http.MethodGet, "/v0/invoices", nil), tt.err)

			if w.Code != tt.wantStatus {
				t.Errorf("status = %d, want %d", w.Code, tt.wantStatus)
			}
			if ct := w.Header().Get("Content-Type"); ct != "application/problem+json" {
				t.Errorf("Content-Type = %q, want application/problem+json", ct)
			}
			if got := w.Header().Get("Retry-After"); got != tt.wantRetryAfter {
				t.Errorf("Retry-After = %q, want %q", got, tt.wantRetryAfter)
			}
			body := w.Body.String()
			if strings.Contains(body, "SELECT") || strings.Contains(body, "hunter2") {
				t.Errorf("body leaks the error's internals: %s", body)
			}
			var p map[string]any
			if err := json.Unmarshal([]byte(body), &p); err != nil {
				t.Fatalf("body is not JSON: %v: %s", err, body)
			}
			if p["code"] != tt.wantCode || p["status"] != float64(tt.wantStatus) {
				t.Errorf("body = %s, want code %q and status %d", body, tt.wantCode, tt.wantStatus)
			}
			wantLines := 0
			if tt.wantLogged {
				wantLines = 1
			}
			if logged := strings.Count(logs.String(), "\n"); logged != wantLines {
				t.Errorf("logged %d lines, want %d: %s", logged, wantLines, logs.String())
			}
			if tt.wantLogged && !strings.Contains(logs.String(), "hunter2") {
				t.Errorf("the log lacks the error for support: %s", logs.String())
			}
		})
	}
}

func TestWriteProblemKeepsRetryAfterAndAddsTraceID(t *testing.T) {
	tp := sdktrace.NewTracerProvider()
	defer func() { _ = tp.Shutdown(context.Background()) }()
	ctx, span := tp.Tracer("test").Start(context.Background(), "request")
	defer span.End()

	w := httptest.NewRecorder()
	w.Header().Set("Retry-After", "30")
	r := httptest.NewRequest(http.MethodGet, "/", nil).WithContext(ctx)
	httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusServiceUnavailable, "unavailable", "later"))

	if got := w.Header().Get("Retry-After"); got != "30" {
		t.Errorf("Retry-After = %q, want the handler's 30", got)
	}
	var p httpapi.Problem
	if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil {
		t.Fatal(err)
	}
	if want := span.SpanContext().TraceID().String(); p.TraceID != want {
		t.Errorf("traceId = %q, want %q", p.TraceID, want)
	}
}

func TestProblemMarshalJSON(t *testing.T) {
	base := httpapi.NewProblem(http.StatusUnprocessableEntity, "insufficient_stock", "not enough cartons")
	withParameter := httpapi.NewProblem(http.StatusBadRequest, "invalid_parameter", "bad take")
	withParameter.Parameter = "take"
	withItems := httpapi.ProblemFor(&shipping.InsufficientStockError{Items: []shipping.StockShortage{
		{ItemID: "ctn_1", SKU: "BOX-1", Requested: 3, Available: 1}}})
	withIDs := httpapi.ProblemFor(&shipping.UnknownItemsError{Kind: shipping.KindCarton, IDs: []string{"ctn_9"}})

	tests := []struct {
		name string
		p    httpapi.Problem
		want string
	}{
		{"plain", base,
			`{"type":"about:blank","title":"Unprocessable Entity","status":422,"detail":"not enough cartons","code":"insufficient_stock"}`},
		{"parameter", withParameter,
			`{"type":"about:blank","title":"Bad Request","status":400,"detail":"bad take","code":"invalid_parameter","parameter":"take"}`},
		{"items", withItems,
			`{"type":"about:blank","title":"Unprocessable Entity","status":422,"detail":"the warehouse does not hold enough of these cartons; nothing was reserved","code":"insufficient_stock","items":[{"cartonId":"ctn_1","sku":"BOX-1","requested":3,"available":1}]}`},
		{"ids", withIDs,
			`{"type":"about:blank","title":"Unprocessable Entity","status":422,"detail":"these cartons are not records of the organization","code":"unknown_items","ids":["ctn_9"]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := json.Marshal(tt.p)
			if err != nil {
				t.Fatalf("Marshal: %v", err)
			}
			if string(got) != tt.want {
				t.Errorf("Marshal =\n %s\nwant\n %s", got, tt.want)
			}
		})
	}
}
