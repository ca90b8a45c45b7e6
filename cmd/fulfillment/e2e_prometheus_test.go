package main

// The service's metrics, its Grafana dashboard and its Prometheus rules
// against a real Prometheus that scrapes two real servers (one with its
// database away) under a workload.

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/acme3pl/fulfillment/adapters/telemetry"
	"github.com/acme3pl/fulfillment/cmd/fulfillment/internal/e2e"
	"github.com/acme3pl/fulfillment/domain/shipping"
)

// prometheus is a private Prometheus server on a loopback port.
type prometheus struct {
	*toolProcess
	URL string
}

// startPrometheus runs Prometheus scraping targets (host:port) every second
// as job "fulfillment", with ruleFiles evaluated every second and exemplar
// storage on. It is stopped when the test ends.
func startPrometheus(t *testing.T, targets []string, ruleFiles ...string) *prometheus {
	t.Helper()
	bin := tool(t, "prometheus")
	dir := t.TempDir()
	var rules []string
	for _, f := range ruleFiles {
		abs, err := filepath.Abs(f)
		if err != nil {
			t.Fatal(err)
		}
		rules = append(rules, abs)
	}
	list := func(v []string) string { b, _ := json.Marshal(v); return string(b) } // a YAML flow sequence
	cfg := fmt.Sprintf(`global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
rule_files: %s
scrape_configs:
  - job_name: fulfillment
    static_configs:
      - targets: %s
`, list(rules), list(targets))
	cfgPath := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	addr := e2e.FreeAddr(t)
	p := &prometheus{URL: "http://" + addr}
	p.toolProcess = runTool(t, "prometheus", exec.Command(bin, "--config.file="+cfgPath,
		"--storage.tsdb.path="+filepath.Join(dir, "data"), "--web.listen-address="+addr,
		"--enable-feature=exemplar-storage", "--log.level=warn"))
	p.poll(t, "ready", func() bool { return answers200(p.URL + "/-/ready") })
	return p
}

// api GETs a Prometheus API path and decodes its data member into v; it
// returns the error Prometheus gave, if any.
func (p *prometheus) api(t *testing.T, path string, params url.Values, v any) error {
	t.Helper()
	resp, err := http.Get(p.URL + path + "?" + params.Encode())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	var body struct {
		Status string          `json:"status"`
		Data   json.RawMessage `json:"data"`
		Error  string          `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatalf("%s: not the API's JSON (%d): %v", path, resp.StatusCode, err)
	}
	if body.Status != "success" {
		return fmt.Errorf("%s (HTTP %d)", body.Error, resp.StatusCode)
	}
	if err := json.Unmarshal(body.Data, v); err != nil {
		t.Fatalf("%s: %v: %s", path, err, body.Data)
	}
	return nil
}

// promSample is one series of an instant vector.
type promSample struct {
	Metric map[string]string
	Value  float64
}

// query evaluates expr now; it fails the test unless the result is a
// vector (what every panel and rule here gives).
func (p *prometheus) query(t *testing.T, expr string) ([]promSample, error) {
	t.Helper()
	var data struct {
		ResultType string `json:"resultType"`
		Result     []struct {
			Metric map[string]string `json:"metric"`
			Value  [2]any            `json:"value"`
		} `json:"result"`
	}
	if err := p.api(t, "/api/v1/query", url.Values{"query": {expr}}, &data); err != nil {
		return nil, err
	}
	if data.ResultType != "vector" {
		t.Fatalf("%s: result type %s, want vector", expr, data.ResultType)
	}
	out := make([]promSample, len(data.Result))
	for i, r := range data.Result {
		s, _ := r.Value[1].(string)
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("%s: value %v", expr, r.Value)
		}
		out[i] = promSample{Metric: r.Metric, Value: v}
	}
	return out, nil
}

// waitValue waits until expr (a single-series vector) is at least want.
func (p *prometheus) waitValue(t *testing.T, expr string, want float64) {
	t.Helper()
	p.poll(t, fmt.Sprintf("%s >= %v", expr, want), func() bool {
		s, err := p.query(t, expr)
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		return len(s) == 1 && s[0].Value >= want
	})
}

// TestObservabilityUnderWorkload: a Prometheus scrapes a working server and
// one whose database is away while a workload runs twice (rates need two
// scrapes of a series), then: /metrics has every family with its labels,
// every query of the dashboard parses and returns data, the latency
// histogram's exemplars carry trace IDs of real responses, and the rules
// load and evaluate.
func TestObservabilityUnderWorkload(t *testing.T) {
	seedObs(t)
	// Exemplars link to exported traces: this server exports its spans.
	collector := newSpanCollector(t)
	srv := e2e.StartServer(t, e2e.BaseEnv(e2e.TestDSN, "OTEL_TRACES_EXPORTER=otlp", "OTEL_EXPORTER_OTLP_ENDPOINT="+collector.url))
	down := startDownServer(t)
	hostPort := func(s *e2e.Server) string { return strings.TrimPrefix(s.URL, "http://") }
	prom := startPrometheus(t, []string{hostPort(srv), hostPort(down)}, repoFile("deploy", "prometheus", "rules.yaml"))
	prom.waitValue(t, `count(up{job="fulfillment"} == 1)`, 2)

	var answers []obsAnswers
	for phase, firstOrder := range []int64{7_100_001, 7_200_001} {
		answers = append(answers, obsWorkload(t, srv, down, firstOrder))
		// The last counters each server moves; then every series of the
		// workload has been scraped after it.
		prom.waitValue(t, `sum(fulfillment_shipment_transitions_total{kind="spd", status="cancelled"})`, float64(phase+1))
		prom.waitValue(t, `sum(fulfillment_storefront_orders_total{outcome="failed"})`, float64(phase+1))
	}

	t.Run("metrics endpoint", func(t *testing.T) { checkMetricsEndpoint(t, srv, down, answers) })
	t.Run("dashboard queries", func(t *testing.T) { checkDashboardQueries(t, prom) })
	t.Run("exemplars", func(t *testing.T) { checkExemplars(t, prom, answers) })
	t.Run("rules", func(t *testing.T) { checkRulesLoaded(t, prom) })
}

// scrape reads a server's /metrics in the text format.
func scrape(t *testing.T, s *e2e.Server) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(s.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("/metrics is not the text format: %v", err)
	}
	return families
}

// series is a family's series as "label=value,..." (sorted) → value
// (counter, gauge or histogram count).
func series(f *dto.MetricFamily) map[string]float64 {
	out := map[string]float64{}
	for _, m := range f.GetMetric() {
		var labels []string
		for _, l := range m.GetLabel() {
			labels = append(labels, l.GetName()+"="+l.GetValue())
		}
		slices.Sort(labels)
		v := m.GetCounter().GetValue() + m.GetGauge().GetValue() + float64(m.GetHistogram().GetSampleCount())
		out[strings.Join(labels, ",")] = v
	}
	return out
}

func checkMetricsEndpoint(t *testing.T, srv, down *e2e.Server, answers []obsAnswers) {
	families := scrape(t, srv)
	family := func(name string) map[string]float64 {
		t.Helper()
		f, ok := families[name]
		if !ok {
			t.Fatalf("/metrics lacks %s", name)
		}
		return series(f)
	}
	n := float64(len(answers))
	// Exact counts: this server saw the workload twice and nothing else.
	orders := family("fulfillment_storefront_orders_total")
	for key, want := range map[string]float64{
		"code=,outcome=created": n, "code=,outcome=duplicate": n, "code=,outcome=skipped": n,
		"code=unknown_skus,outcome=refused": n, "code=invalid_api_key,outcome=refused": n,
		"code=invalid_payload,outcome=refused": n, "code=no_warehouse,outcome=refused": 0,
		"code=unavailable,outcome=failed": 0, "code=internal,outcome=failed": 0,
	} {
		if orders[key] != want {
			t.Errorf("orders_total{%s} = %v, want %v", key, orders[key], want)
		}
	}
	outcomes := []string{"created", "duplicate", "skipped", "refused", "failed"}
	codes := []string{"", "invalid_api_key", "invalid_signature", "insufficient_scope", "invalid_payload", "payload_too_large",
		"unsupported_media_type", "unknown_skus", "missing_sku", "missing_shipping_address", "no_warehouse", "unavailable", "internal"}
	for key := range orders {
		code, outcome, _ := strings.Cut(strings.TrimPrefix(key, "code="), ",outcome=")
		if !slices.Contains(outcomes, outcome) || !slices.Contains(codes, code) {
			t.Errorf("orders_total has an unexpected series {%s}", key)
		}
	}
	if got := series(scrape(t, down)["fulfillment_storefront_orders_total"])["code=unavailable,outcome=failed"]; got != n {
		t.Errorf("the server without a database: orders_total{failed,unavailable} = %v, want %v", got, n)
	}

	transitions := family("fulfillment_shipment_transitions_total")
	for key, want := range map[string]float64{
		"kind=pick_pack,status=pending": 2 * n, // the intake's and the API's
		"kind=pick_pack,status=draft":   n, "kind=spd,status=draft": n, "kind=spd,status=cancelled": n,
		"kind=spd,status=pending":         0, // refused: not counted
		"kind=pick_pack,status=cancelled": 0,
		"kind=pick_pack,status=shipped":   0, "kind=spd,status=shipped": 0,
	} {
		if transitions[key] != want {
			t.Errorf("transitions_total{%s} = %v, want %v", key, transitions[key], want)
		}
	}
	if want := len(shipping.ShipmentKinds) * len(shipping.ShipmentStatuses); len(transitions) != want {
		t.Errorf("transitions_total has %d series, want %d: %v", len(transitions), want, transitions)
	}

	received := family("fulfillment_warehouse_units_received_total")
	if want := map[string]float64{"kind=product": 3 * n, "kind=carton": 2 * n}; !maps.Equal(received, want) {
		t.Errorf("warehouse_units_received_total = %v, want %v (a retried receipt counts nothing)", received, want)
	}

	for _, name := range []string{"fulfillment_http_requests_shed_total", "fulfillment_http_requests_timed_out_total"} {
		s := family(name)
		for _, route := range []string{"/v0/storefront/orders", "/v0/shipments", "/v0/shipments/{id}/submit", "/v0/warehouses", "/v0/invoices"} {
			if v, ok := s["route="+route]; !ok || v != 0 {
				t.Errorf("%s{route=%q} = %v (present %v), want 0", name, route, v, ok)
			}
		}
		for key := range s {
			if !strings.HasPrefix(key, "route=/v0/") || strings.Count(key, "=") != 1 {
				t.Errorf("%s has an unexpected series {%s}", name, key)
			}
		}
	}

	// Billing: every fee (the tariff's, less the minimum's price, and the
	// charge kinds beyond the card: telemetry.BillingFees) and status at 0
	// or more from the start; no period of this database waits past its
	// grace.
	billingCharges := family("fulfillment_billing_charges_total")
	for _, fee := range telemetry.BillingFees {
		if _, ok := billingCharges["fee="+fee]; !ok {
			t.Errorf("fulfillment_billing_charges_total lacks {fee=%q}: %v", fee, billingCharges)
		}
	}
	if len(billingCharges) != len(telemetry.BillingFees) {
		t.Errorf("fulfillment_billing_charges_total has %d series, want %d: %v", len(billingCharges), len(telemetry.BillingFees), billingCharges)
	}
	if s := family("fulfillment_billing_invoices_total"); len(s) != 6 || s["status=unpaid"] < 0 || s["status=collecting"] < 0 {
		t.Errorf("fulfillment_billing_invoices_total = %v, want the six visible statuses", s)
	}
	if s := family("fulfillment_billing_overdue_period_seconds"); len(s) != 1 || s[""] != 0 {
		t.Errorf("fulfillment_billing_overdue_period_seconds = %v, want one series at 0", s)
	}

	latency := family("http_server_request_duration_seconds")
	if got := latency["code=200,method=POST,route=/v0/storefront/orders"]; got != 3*n {
		t.Errorf("latency count of the intake's 200s = %v, want %v", got, 3*n)
	}
	for key := range latency {
		if !regexp.MustCompile(`^code=\d{3},method=[A-Z]+,route=(/\S*|unmatched)$`).MatchString(key) {
			t.Errorf("http_server_request_duration_seconds has an unexpected series {%s}", key)
		}
	}

	for _, name := range []string{"go_sql_open_connections", "go_sql_in_use_connections", "go_sql_idle_connections",
		"go_sql_max_open_connections", "go_sql_wait_count_total", "go_sql_wait_duration_seconds_total"} {
		s := family(name)
		if _, ok := s["db_name=fulfillment"]; !ok || len(s) != 1 {
			t.Errorf("%s = %v, want one series {db_name=fulfillment}", name, s)
		}
	}
	if size := family("go_sql_max_open_connections")["db_name=fulfillment"]; size < 1 {
		t.Errorf("go_sql_max_open_connections = %v", size)
	}

	build := families["fulfillment_build_info"]
	if build == nil || len(build.GetMetric()) != 1 || build.GetMetric()[0].GetGauge().GetValue() != 1 {
		t.Fatalf("fulfillment_build_info = %v", build)
	}
	labels := map[string]string{}
	for _, l := range build.GetMetric()[0].GetLabel() {
		labels[l.GetName()] = l.GetValue()
	}
	if labels["version"] == "" || !strings.HasPrefix(labels["goversion"], "go") {
		t.Errorf("fulfillment_build_info labels %v", labels)
	}

	// OpenMetrics when asked for: the latency buckets carry exemplars with
	// the trace IDs of responses.
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/metrics", nil)
	req.Header.Set("Accept", "application/openmetrics-text;version=1.0.0")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/openmetrics-text") {
		t.Fatalf("Content-Type %q, want OpenMetrics", ct)
	}
	exemplar := regexp.MustCompile(`(?m)^http_server_request_duration_seconds_bucket\{[^}]*route="/v0/storefront/orders"[^}]*\} \d+ # \{trace_id="([0-9a-f]{32})"\}`)
	sent, found := sentTraceIDs(answers), exemplar.FindAllStringSubmatch(string(body), -1)
	for _, m := range found {
		if !sent[m[1]] {
			t.Errorf("exemplar trace ID %s is not the X-Trace-Id of any delivery", m[1])
		}
	}
	if len(found) == 0 {
		t.Error("no bucket of the intake's latency has an exemplar")
	}
	if !strings.HasSuffix(strings.TrimSpace(string(body)), "# EOF") {
		t.Error("the OpenMetrics exposition does not end with # EOF")
	}
}

// sentTraceIDs is the set of X-Trace-Ids of the workloads' deliveries.
func sentTraceIDs(answers []obsAnswers) map[string]bool {
	sent := map[string]bool{}
	for _, a := range answers {
		for _, r := range []e2e.Response{a.Created, a.Duplicate, a.Skipped, a.Refused, a.Unauthorized, a.Invalid, a.Unavailable} {
			sent[r.Header.Get("X-Trace-Id")] = true
		}
	}
	return sent
}

func checkExemplars(t *testing.T, prom *prometheus, answers []obsAnswers) {
	sent := sentTraceIDs(answers)
	var data []struct {
		SeriesLabels map[string]string `json:"seriesLabels"`
		Exemplars    []struct {
			Labels map[string]string `json:"labels"`
		} `json:"exemplars"`
	}
	q := url.Values{"query": {`http_server_request_duration_seconds_bucket{route="/v0/storefront/orders"}`},
		"start": {strconv.FormatInt(time.Now().Add(-10*time.Minute).Unix(), 10)}, "end": {strconv.FormatInt(time.Now().Unix(), 10)}}
	if err := prom.api(t, "/api/v1/query_exemplars", q, &data); err != nil {
		t.Fatal(err)
	}
	matched := 0
	for _, s := range data {
		for _, e := range s.Exemplars {
			if sent[e.Labels["trace_id"]] {
				matched++
			}
		}
	}
	if matched == 0 {
		t.Errorf("no exemplar of the intake's latency carries the X-Trace-Id of a delivery: %+v", data)
	}
}

func checkRulesLoaded(t *testing.T, prom *prometheus) {
	type rule struct {
		Name      string `json:"name"`
		Health    string `json:"health"`
		LastError string `json:"lastError"`
		Type      string `json:"type"`
	}
	var data struct {
		Groups []struct {
			Name  string `json:"name"`
			Rules []rule `json:"rules"`
		} `json:"groups"`
	}
	var all []rule
	prom.poll(t, "every rule evaluated", func() bool {
		if err := prom.api(t, "/api/v1/rules", nil, &data); err != nil {
			t.Fatal(err)
		}
		all = all[:0]
		for _, g := range data.Groups {
			all = append(all, g.Rules...)
		}
		return len(all) > 0 && !slices.ContainsFunc(all, func(r rule) bool { return r.Health == "unknown" })
	})
	for _, r := range all {
		if r.Health != "ok" {
			t.Errorf("rule %s: health %s: %s", r.Name, r.Health, r.LastError)
		}
	}
	// The recorded indicators have data (once the group has been evaluated
	// after the second scrape): the down server's 503s count against
	// availability, and every answer was fast.
	for _, expr := range []string{`fulfillment:intake_error_ratio:rate5m{job="fulfillment"} > 0`, `fulfillment:intake_slow_ratio:rate5m{job="fulfillment"} >= 0`} {
		prom.poll(t, expr, func() bool {
			s, err := prom.query(t, expr)
			if err != nil {
				t.Fatalf("%s: %v", expr, err)
			}
			return len(s) == 1
		})
	}
}
