package main

// Traces, end to end: the real binary exports over OTLP/HTTP to a real
// Jaeger v2 (scripts/jaeger.sh, in-memory), and each delivery's trace is
// read back from Jaeger's query API by the X-Trace-Id of its response.

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/cmd/fulfillment/internal/e2e"
)

// jaeger is a running scripts/jaeger.sh on free loopback ports.
type jaeger struct {
	*toolProcess
	OTLP, Query string // host:port of the OTLP/HTTP receiver and of the query API
}

func startJaeger(t *testing.T) *jaeger {
	t.Helper()
	tool(t, "jaeger") // fails now, saying how to build it, when it is not built
	j := &jaeger{OTLP: e2e.FreeAddr(t), Query: e2e.FreeAddr(t)}
	cmd := exec.Command(repoFile("scripts", "jaeger.sh"))
	cmd.Env = append(os.Environ(), "TOOLS_NO_INSTALL=1",
		"JAEGER_OTLP_ADDR="+j.OTLP, "JAEGER_QUERY_ADDR="+j.Query, "JAEGER_QUERY_GRPC_ADDR="+e2e.FreeAddr(t))
	j.toolProcess = runTool(t, "jaeger", cmd)
	j.poll(t, "Jaeger to listen", func() bool {
		conn, err := net.DialTimeout("tcp", j.OTLP, time.Second)
		if err != nil {
			return false
		}
		_ = conn.Close()
		return answers200("http://" + j.Query + "/api/services")
	})
	return j
}

// otlpSpan is one span of a trace as Jaeger's API v3 gives it (OTLP JSON),
// with its resource's attributes.
type otlpSpan struct {
	TraceID      string
	SpanID       string
	ParentSpanID string
	Name         string
	Kind         string // SERVER, CLIENT, INTERNAL, ...
	Attrs        map[string]string
	Resource     map[string]string
	LinkedTraces []string // the trace IDs of the span's links
}

// otlpAttrs flattens OTLP JSON attributes to strings.
func otlpAttrs(kvs []struct {
	Key   string                     `json:"key"`
	Value map[string]json.RawMessage `json:"value"`
},
) map[string]string {
	out := map[string]string{}
	for _, kv := range kvs {
		for _, raw := range kv.Value {
			var s string
			if json.Unmarshal(raw, &s) != nil {
				s = string(raw) // bool, double
			}
			out[kv.Key] = s
		}
	}
	return out
}

// trace fetches a trace by ID: nil when Jaeger does not have it.
func (j *jaeger) trace(t *testing.T, id string) []otlpSpan {
	t.Helper()
	resp, err := http.Get("http://" + j.Query + "/api/v3/traces/" + id)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode == http.StatusNotFound {
		return nil
	}
	type attrs = []struct {
		Key   string                     `json:"key"`
		Value map[string]json.RawMessage `json:"value"`
	}
	var body struct {
		Result struct {
			ResourceSpans []struct {
				Resource struct {
					Attributes attrs `json:"attributes"`
				} `json:"resource"`
				ScopeSpans []struct {
					Spans []struct {
						TraceID      string          `json:"traceId"`
						SpanID       string          `json:"spanId"`
						ParentSpanID string          `json:"parentSpanId"`
						Name         string          `json:"name"`
						Kind         json.RawMessage `json:"kind"`
						Attributes   attrs           `json:"attributes"`
						Links        []struct {
							TraceID string `json:"traceId"`
						} `json:"links"`
					} `json:"spans"`
				} `json:"scopeSpans"`
			} `json:"resourceSpans"`
		} `json:"result"`
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /api/v3/traces/%s: %d", id, resp.StatusCode)
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatalf("trace %s: %v", id, err)
	}
	kinds := map[string]string{"1": "INTERNAL", "2": "SERVER", "3": "CLIENT", "4": "PRODUCER", "5": "CONSUMER"}
	var out []otlpSpan
	for _, rs := range body.Result.ResourceSpans {
		res := otlpAttrs(rs.Resource.Attributes)
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				kind := strings.TrimPrefix(strings.Trim(string(s.Kind), `"`), "SPAN_KIND_")
				if k, ok := kinds[kind]; ok {
					kind = k
				}
				sp := otlpSpan{TraceID: s.TraceID, SpanID: s.SpanID, ParentSpanID: s.ParentSpanID, Name: s.Name,
					Kind: kind, Attrs: otlpAttrs(s.Attributes), Resource: res}
				for _, l := range s.Links {
					sp.LinkedTraces = append(sp.LinkedTraces, l.TraceID)
				}
				out = append(out, sp)
			}
		}
	}
	return out
}

// wholeTrace waits until Jaeger has the trace with its server span (the
// root, which ends last) and the number of spans has stopped changing.
func (j *jaeger) wholeTrace(t *testing.T, id string) []otlpSpan {
	t.Helper()
	var spans []otlpSpan
	last := -1
	j.poll(t, "trace "+id+" in Jaeger", func() bool {
		spans = j.trace(t, id)
		settled := len(spans) == last && slicesContainsKind(spans, "SERVER")
		last = len(spans)
		return settled
	})
	return spans
}

func slicesContainsKind(spans []otlpSpan, kind string) bool {
	for _, s := range spans {
		if s.Kind == kind {
			return true
		}
	}
	return false
}

// checkDeliveryTrace checks the trace of one delivery: one root server span
// of the intake's route with the answer's status, the use case's span
// beneath it with what a dashboard follows, and a client span per SQL
// statement, all on the service's resource.
func checkDeliveryTrace(t *testing.T, spans []otlpSpan, traceID string, status int, outcome, orderID, shipmentID string) {
	t.Helper()
	byID := map[string]otlpSpan{}
	for _, s := range spans {
		byID[s.SpanID] = s
		if s.TraceID != traceID {
			t.Errorf("span %s has trace ID %s, want %s", s.Name, s.TraceID, traceID)
		}
		for k, want := range map[string]string{"service.name": "fulfillment-e2e", "service.version": "dev", "deployment.environment.name": "sandbox"} {
			if s.Resource[k] != want {
				t.Errorf("span %s: resource %s = %q, want %q", s.Name, k, s.Resource[k], want)
			}
		}
	}
	var roots, servers, useCases, queries []otlpSpan
	for _, s := range spans {
		switch {
		case s.ParentSpanID == "":
			roots = append(roots, s)
		case byID[s.ParentSpanID].SpanID == "":
			t.Errorf("span %s: its parent %s is not in the trace", s.Name, s.ParentSpanID)
		}
		switch {
		case s.Kind == "SERVER":
			servers = append(servers, s)
		case s.Name == "ReceiveStorefrontOrder":
			useCases = append(useCases, s)
		case s.Kind == "CLIENT":
			queries = append(queries, s)
		}
	}
	if len(roots) != 1 || len(servers) != 1 || roots[0].SpanID != servers[0].SpanID {
		t.Fatalf("trace %s: roots %d, server spans %d; want one root, the server span (spans: %v)", traceID, len(roots), len(servers), spanNames(spans))
	}
	srv := servers[0]
	if srv.Name != "POST /v0/storefront/orders" || srv.Attrs["http.route"] != "/v0/storefront/orders" ||
		srv.Attrs["http.response.status_code"] != fmt.Sprint(status) {
		t.Errorf("server span %q %v", srv.Name, srv.Attrs)
	}
	under := func(s otlpSpan, ancestor string) bool {
		for p := s.ParentSpanID; p != ""; p = byID[p].ParentSpanID {
			if p == ancestor {
				return true
			}
		}
		return false
	}
	if len(useCases) != 1 || !under(useCases[0], srv.SpanID) {
		t.Fatalf("want one ReceiveStorefrontOrder span under the server span; spans: %v", spanNames(spans))
	}
	uc := useCases[0].Attrs
	if uc["organization.id"] != obsOrg || uc["storefront.order.id"] != orderID || uc["fulfillment.intake.outcome"] != outcome ||
		uc["shipment.id"] != shipmentID {
		t.Errorf("use case span attributes %v; want organization %s, order %s, outcome %s, shipment %q", uc, obsOrg, orderID, outcome, shipmentID)
	}
	inUseCase := 0
	for _, q := range queries {
		if sys := q.Attrs["db.system.name"] + q.Attrs["db.system"]; sys != "postgresql" {
			t.Errorf("client span %q: db.system(.name) %q, want postgresql", q.Name, sys)
		}
		if !under(q, srv.SpanID) {
			t.Errorf("client span %q is not under the server span", q.Name)
		}
		if under(q, useCases[0].SpanID) {
			inUseCase++
		}
	}
	// The use case claims the receipt (reading the order's SKUs and
	// warehouse) and, unless the order is a duplicate, finishes it — for a
	// new order with the shipment, in the same statement — in a
	// transaction: each statement has its span (BEGIN and COMMIT too).
	if least := map[string]int{"created": 4, "duplicate": 3, "refused": 4, "skipped": 4}[outcome]; inUseCase < least {
		t.Errorf("%s: %d SQL spans in the use case (want ≥ %d) of %d in all; spans: %v", outcome, inUseCase, least, len(queries), spanNames(spans))
	}
}

func spanNames(spans []otlpSpan) []string {
	var out []string
	for _, s := range spans {
		out = append(out, s.Kind+" "+s.Name)
	}
	return out
}

// TestTracesInJaeger: each delivery is one trace in Jaeger, found by its
// X-Trace-Id, with the server span, the use case's span and the SQL spans.
func TestTracesInJaeger(t *testing.T) {
	seedObs(t)
	j := startJaeger(t)
	otlpEnv := []string{"OTEL_TRACES_EXPORTER=otlp", "OTEL_EXPORTER_OTLP_ENDPOINT=http://" + j.OTLP,
		"OTEL_SERVICE_NAME=fulfillment-e2e", "OTEL_BSP_SCHEDULE_DELAY=100", "ENVIRONMENT=sandbox"}
	srv := e2e.StartServer(t, e2e.BaseEnv(e2e.TestDSN, otlpEnv...))

	created := e2e.Deliver(t, srv, obsIntakeKey, obsOrder(t, 7_300_001, "OBS-1", nil))
	shipmentID := e2e.WantShipment(t, created)
	duplicate := e2e.Deliver(t, srv, obsIntakeKey, obsOrder(t, 7_300_001, "OBS-1", nil))
	refused := e2e.Deliver(t, srv, obsIntakeKey, obsOrder(t, 7_300_002, "NO-SUCH-SKU", nil))
	wantIntakeError(t, refused, 422, "unknown_skus")
	skipped := e2e.Deliver(t, srv, obsIntakeKey, obsOrder(t, 7_300_004, "OBS-1", map[string]any{"cancelled_at": "2026-01-01T00:00:00Z"}))
	if s := e2e.IntakeJSON(t, skipped); skipped.Status != 200 || s.Skipped != "order_cancelled" {
		t.Fatalf("cancelled order: %d %s, want skipped", skipped.Status, skipped.Body)
	}

	for _, tt := range []struct {
		name       string
		r          e2e.Response
		status     int
		orderID    string
		shipmentID string
	}{
		{"created", created, 200, "7300001", shipmentID},
		{"duplicate", duplicate, 200, "7300001", shipmentID},
		{"refused", refused, 422, "7300002", ""},
		{"skipped", skipped, 200, "7300004", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			id := tt.r.Header.Get("X-Trace-Id")
			checkDeliveryTrace(t, j.wholeTrace(t, id), id, tt.status, tt.name, tt.orderID, tt.shipmentID)
		})
	}

	// Every delivery of an order is found by the order's ID, as support
	// searches from a complaint (docs/observability.md).
	t.Run("search by order", func(t *testing.T) {
		want := []string{created.Header.Get("X-Trace-Id"), duplicate.Header.Get("X-Trace-Id")}
		slices.Sort(want)
		q := url.Values{"service": {"fulfillment-e2e"}, "tags": {`{"storefront.order.id":"7300001"}`}, "lookback": {"1h"}, "limit": {"20"}}
		var got []string
		j.poll(t, "search by storefront.order.id", func() bool {
			resp, err := http.Get("http://" + j.Query + "/api/traces?" + q.Encode())
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = resp.Body.Close() }()
			var body struct {
				Data []struct {
					TraceID string `json:"traceID"`
				} `json:"data"`
			}
			if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
				t.Fatalf("search: %d: %v", resp.StatusCode, err)
			}
			got = got[:0]
			for _, d := range body.Data {
				got = append(got, d.TraceID)
			}
			slices.Sort(got)
			return slices.Equal(got, want)
		})
	})

	// A storefront that sends its own sampled trace context gets its trace
	// continued: same trace ID, the server span a child of its span.
	t.Run("caller's trace continued", func(t *testing.T) {
		parentTrace, parentSpan := "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
		r := e2e.Deliver(t, srv, obsIntakeKey, obsOrder(t, 7_300_003, "OBS-1", nil), "traceparent", "00-"+parentTrace+"-"+parentSpan+"-01")
		e2e.WantShipment(t, r)
		if got := r.Header.Get("X-Trace-Id"); got != parentTrace {
			t.Fatalf("X-Trace-Id %s, want the caller's %s", got, parentTrace)
		}
		for _, s := range j.wholeTrace(t, parentTrace) {
			if s.Kind == "SERVER" && s.ParentSpanID != parentSpan {
				t.Errorf("server span's parent %q, want the caller's span %s", s.ParentSpanID, parentSpan)
			}
		}
	})
}

// TestTracesSampler: OTEL_TRACES_SAMPLER is honoured. always_off exports
// nothing (responses still carry X-Trace-Id); traceidratio exports exactly
// the traces whose ID falls under the ratio, as the specification's
// algorithm decides.
func TestTracesSampler(t *testing.T) {
	seedObs(t)
	j := startJaeger(t)
	env := func(sampler ...string) []string {
		return e2e.BaseEnv(e2e.TestDSN, append([]string{"OTEL_TRACES_EXPORTER=otlp", "OTEL_EXPORTER_OTLP_ENDPOINT=http://" + j.OTLP,
			"OTEL_BSP_SCHEDULE_DELAY=100"}, sampler...)...)
	}
	off := e2e.StartServer(t, env("OTEL_TRACES_SAMPLER=always_off"))
	ratio := e2e.StartServer(t, env("OTEL_TRACES_SAMPLER=traceidratio", "OTEL_TRACES_SAMPLER_ARG=0.5"))

	var offIDs []string
	for i := range 3 {
		r := e2e.Deliver(t, off, obsIntakeKey, obsOrder(t, 7_400_001+int64(i), "OBS-1", nil))
		e2e.WantShipment(t, r)
		offIDs = append(offIDs, r.Header.Get("X-Trace-Id"))
	}
	var sampled, notSampled []string
	for range 40 {
		r := e2e.Do(t, "GET", ratio.URL+"/v0/warehouses", nil) // 401 without a token: a request all the same
		id := r.Header.Get("X-Trace-Id")
		b, err := hex.DecodeString(id)
		if err != nil || len(b) != 16 {
			t.Fatalf("X-Trace-Id %q", id)
		}
		// The SDK's TraceIDRatioBased: the trace ID's last 63 bits under
		// ratio × 2^63.
		if binary.BigEndian.Uint64(b[8:16])>>1 < uint64(0.5*(1<<63)) {
			sampled = append(sampled, id)
		} else {
			notSampled = append(notSampled, id)
		}
	}
	if len(sampled) == 0 || len(notSampled) == 0 {
		t.Fatalf("40 random trace IDs all on one side of 0.5: %d sampled", len(sampled))
	}
	for _, id := range offIDs {
		if len(id) != 32 || id == strings.Repeat("0", 32) {
			t.Fatalf("always_off: X-Trace-Id %q, want a trace ID all the same", id)
		}
	}
	// Stopping flushes what each server has to export.
	off.Stop(t)
	ratio.Stop(t)
	for _, id := range sampled {
		j.poll(t, "sampled trace "+id, func() bool { return j.trace(t, id) != nil })
	}
	for _, id := range append(notSampled, offIDs...) {
		if spans := j.trace(t, id); spans != nil {
			t.Errorf("trace %s was exported (%d spans); its sampler said no", id, len(spans))
		}
	}
}
