package main

// Observability, end to end: the tools that consume the service's telemetry
// (Prometheus, promtool, Jaeger) run for real against the real binary. This
// file holds what those tests share: the tools, a fixture and a workload
// that makes every metric family and label value the dashboard and the
// alerts query.

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/cmd/fulfillment/internal/e2e"
)

// tool returns the path of a tool that scripts/tools.sh provides. It never
// installs or builds anything (a first build must not count against a
// test's timeout): `make test` installs every tool of TEST_TOOLS before the
// tests run; otherwise the test fails saying what to run.
func tool(t testing.TB, name string) string {
	t.Helper()
	cmd := exec.Command(filepath.Join("..", "..", "scripts", "tools.sh"), name)
	cmd.Env = append(os.Environ(), "TOOLS_NO_INSTALL=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s is not installed: run `scripts/tools.sh %s` (make test does it before the tests): %v\n%s",
			name, name, err, stderr.String())
	}
	return strings.TrimSpace(string(out))
}

// toolProcess is a tool running for a test. It is stopped when the test
// ends: SIGTERM, then SIGKILL after 10 s.
type toolProcess struct {
	name   string
	logs   *e2e.SyncBuffer
	exited chan struct{} // closed when the process has exited
}

func runTool(t *testing.T, name string, cmd *exec.Cmd) *toolProcess {
	t.Helper()
	p := &toolProcess{name: name, logs: &e2e.SyncBuffer{}, exited: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = p.logs, p.logs
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	go func() { _ = cmd.Wait(); close(p.exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-p.exited
		}
	})
	return p
}

// poll calls ok until it is true, failing after 30 s or when the tool
// exits.
func (p *toolProcess) poll(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !ok() {
		select {
		case <-p.exited:
			t.Fatalf("%s exited while waiting for %s:\n%s", p.name, what, p.logs.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %s not within 30s\n%s", p.name, what, p.logs.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// answers200 tells whether GET url answers 200.
func answers200(url string) bool {
	resp, err := http.Get(url)
	if err != nil {
		return false
	}
	_ = resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// repoFile is the path of a file of the repository, from this package.
func repoFile(parts ...string) string {
	return filepath.Join(append([]string{"..", ".."}, parts...)...)
}

// The observability fixture: one organization with one warehouse, a
// product and a carton in stock, and an intake key.
const (
	obsOrg       = "org_e2e_obs"
	obsIntakeKey = "fk_test_E2EobservabilityIntakeKeyyyyyyyyyyyyyy"
)

func obsFixture() map[string]any {
	return map[string]any{
		"organizations": []any{map[string]any{"id": obsOrg, "name": "Observability", "defaultWarehouseId": "wh_e2e_obs"}},
		"warehouses":    []any{e2e.FixtureWarehouse("wh_e2e_obs", "Obs", true, obsOrg)},
		"products":      []any{map[string]any{"id": "prod_e2e_obs", "organizationId": obsOrg, "sku": "OBS-1", "name": "Obs"}},
		"cartons":       []any{map[string]any{"id": "ctn_e2e_obs", "organizationId": obsOrg, "sku": "OBS-CTN", "name": "Obs carton"}},
		"stock": []any{
			map[string]any{"warehouseId": "wh_e2e_obs", "productId": "prod_e2e_obs", "onHand": 1_000_000},
			map[string]any{"warehouseId": "wh_e2e_obs", "cartonId": "ctn_e2e_obs", "onHand": 1_000_000},
		},
		"apiKeys": []any{map[string]any{"id": "key_e2e_obs", "organizationId": obsOrg, "key": obsIntakeKey,
			"scopes": []string{"shipments", "inventory"}, "revoked": false}},
	}
}

var (
	obsToken string // an access token of obsOrg with scope shipments
	obsWMS   string // an access token of wh_e2e_obs's management system
	// seedObs seeds the fixture once per test binary.
	seedObs = e2e.SeedOnce("observability", func(t *testing.T) {
		e2e.SeedFixture(t, e2e.TestDSN, obsFixture())
		obsToken = e2e.MintToken(t, obsOrg, "shipments")
		obsWMS = e2e.MintWarehouseToken(t, "wh_e2e_obs")
	})
)

// obsOrder is a storefront order of obsOrg's SKU (or of sku), with changes
// in set applied at the top level.
func obsOrder(t *testing.T, id int64, sku string, set map[string]any) []byte {
	t.Helper()
	order := map[string]any{
		"id": id, "order_number": id % 100_000,
		"shipping_address": map[string]any{"name": "Zoë Müller", "address1": "Straße des 17. Juni 135",
			"city": "Berlin", "zip": "10623", "country_code": "DE"},
		"line_items": []any{map[string]any{"id": 1, "sku": sku, "quantity": 2, "requires_shipping": true}},
	}
	for k, v := range set {
		order[k] = v
	}
	b := e2e.MustJSON(t, order)
	return b
}

// obsAnswers are the responses of one workload, by what each shows.
type obsAnswers struct {
	Created, Duplicate, Skipped, Refused, Unauthorized, Invalid, Unavailable e2e.Response
}

// obsWorkload exercises what the dashboard and the alerts look at: every
// outcome of the intake (failed through down, a server whose database is
// unreachable), 4xx and 5xx answers, and each shipment transition (an API
// draft of each kind, one submitted and one cancelled), and units received
// at the warehouse (a receipt and its retry). Order IDs start at
// firstOrder; it uses four.
func obsWorkload(t *testing.T, srv, down *e2e.Server, firstOrder int64) obsAnswers {
	t.Helper()
	var a obsAnswers
	created := obsOrder(t, firstOrder, "OBS-1", nil)
	a.Created = e2e.Deliver(t, srv, obsIntakeKey, created)
	e2e.WantShipment(t, a.Created)
	a.Duplicate = e2e.Deliver(t, srv, obsIntakeKey, created)
	if d := e2e.IntakeJSON(t, a.Duplicate); a.Duplicate.Status != 200 || !d.Duplicate {
		t.Fatalf("second delivery: %d %s, want a duplicate", a.Duplicate.Status, a.Duplicate.Body)
	}
	a.Skipped = e2e.Deliver(t, srv, obsIntakeKey, obsOrder(t, firstOrder+1, "OBS-1", map[string]any{"cancelled_at": "2026-01-01T00:00:00Z"}))
	if s := e2e.IntakeJSON(t, a.Skipped); a.Skipped.Status != 200 || s.Skipped != "order_cancelled" {
		t.Fatalf("cancelled order: %d %s, want skipped", a.Skipped.Status, a.Skipped.Body)
	}
	a.Refused = e2e.Deliver(t, srv, obsIntakeKey, obsOrder(t, firstOrder+2, "NO-SUCH-SKU", nil))
	wantIntakeError(t, a.Refused, 422, "unknown_skus")
	a.Unauthorized = e2e.Deliver(t, srv, "fk_test_NoSuchKeyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy", created)
	wantIntakeError(t, a.Unauthorized, 401, "invalid_api_key")
	a.Invalid = e2e.Deliver(t, srv, obsIntakeKey, []byte(`{"id": `))
	wantIntakeError(t, a.Invalid, 400, "invalid_payload")
	a.Unavailable = e2e.Deliver(t, down, obsIntakeKey, obsOrder(t, firstOrder+3, "OBS-1", nil))
	wantIntakeError(t, a.Unavailable, 503, "unavailable")

	ship := shipClient{t, srv.URL, obsToken}
	pp := ship.ok(ship.do("POST", "/v0/shipments/pick-pack", map[string]any{"warehouseId": "wh_e2e_obs",
		"items": []any{map[string]any{"productId": "prod_e2e_obs", "quantity": 1}}}), http.StatusCreated)
	ship.ok(ship.do("POST", fmt.Sprintf("/v0/shipments/%s/submit", pp["id"]), nil), http.StatusOK)
	spd := ship.ok(ship.do("POST", "/v0/shipments/spd", map[string]any{"warehouseId": "wh_e2e_obs",
		"cartons": []any{map[string]any{"cartonId": "ctn_e2e_obs", "quantity": 1}}}), http.StatusCreated)
	ship.ok(ship.do("POST", fmt.Sprintf("/v0/shipments/%s/cancel", spd["id"]), nil), http.StatusOK)
	// A transition refused (cancelled → pending) is not counted.
	e2e.WantProblem(t, ship.do("POST", fmt.Sprintf("/v0/shipments/%s/submit", spd["id"]), nil), http.StatusConflict, "invalid_state")

	// A truck arrives: 3 products and 2 cartons received, then the same
	// receipt again (a retry counts nothing).
	wms := shipClient{t, srv.URL, obsWMS}
	receipt := map[string]any{"organizationId": obsOrg, "reference": fmt.Sprintf("ASN-OBS-%d", firstOrder),
		"items": []any{map[string]any{"productId": "prod_e2e_obs", "quantity": 3}, map[string]any{"cartonId": "ctn_e2e_obs", "quantity": 2}}}
	wms.ok(wms.do("POST", "/v0/warehouse/receipts", receipt), http.StatusCreated)
	wms.ok(wms.do("POST", "/v0/warehouse/receipts", receipt), http.StatusOK)
	return a
}

// startDownServer runs a server whose database port is closed: it starts
// and is alive, and its database-bound answers are 503.
func startDownServer(t *testing.T) *e2e.Server {
	t.Helper()
	closed := e2e.FreeAddr(t) // nothing listens there
	s := e2e.LaunchServer(t, e2e.BaseEnv("postgres://postgres@"+closed+"/fulfillment?sslmode=disable"))
	s.WaitFor(t, "/healthz", http.StatusOK)
	return s
}
