package console_test

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gorilla/mux"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/acme3pl/fulfillment/adapters/console"
)

// panicky is a group whose one route panics.
type panicky struct{}

func (panicky) Register(r *mux.Router, _ console.Guard) {
	r.HandleFunc("/boom/{id}", func(http.ResponseWriter, *http.Request) { panic("a bug with a secret in it") })
	r.HandleFunc("/fine/{id}", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusTeapot) })
}

// Each request has a span named by its route and one log line without its
// query; a handler that panics answers 500 without the panic's text, and
// the handler keeps serving.
func TestHandlerObservesAndRecovers(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	var logs bytes.Buffer
	h := console.NewHandler(console.HandlerParams{
		Routes: []console.Routes{panicky{}}, Tracer: tp.Tracer("test"), Log: slog.New(slog.NewJSONHandler(&logs, nil)),
	})

	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/boom/1", nil))
	if w.Code != http.StatusInternalServerError || strings.Contains(w.Body.String(), "secret") {
		t.Fatalf("a panic: %d %q", w.Code, w.Body)
	}
	w = httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/fine/2?link=TOKEN", nil))
	if w.Code != http.StatusTeapot {
		t.Fatalf("after a panic: %d", w.Code)
	}
	var names []string
	for _, s := range rec.Ended() {
		names = append(names, s.Name())
	}
	if strings.Join(names, ",") != "console GET /boom/{id},console GET /fine/{id}" {
		t.Fatalf("spans %v", names)
	}
	if !strings.Contains(logs.String(), `"route":"/fine/{id}"`) || !strings.Contains(logs.String(), `"status":418`) ||
		strings.Contains(logs.String(), "TOKEN") {
		t.Fatalf("logs: %s", logs.String())
	}
}
