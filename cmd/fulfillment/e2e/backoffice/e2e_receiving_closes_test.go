package backoffice

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/cmd/fulfillment/internal/e2e"
)

// The issue's own reproduction, end to end: two loops of `billing close`
// run from the command line while a WMS sends receipts and services
// without their time to two server instances. Not one is refused as late
// (422 period_closed): each is dated when it is recorded, after any close
// it raced; on hand rises by every receipt, and every one is charged once.
func TestUndatedReportsRacingCloseLoops(t *testing.T) {
	const org, wh, prod = "org_e2e_undated", "wh_e2e_undated", "prod_e2e_undated"
	card := e2e.BillE2ECard(time.Now().UTC().Format("2006-01") + "-01")
	card["organizationId"] = org
	e2e.SeedFixture(t, e2e.TestDSN, map[string]any{
		"organizations": []any{e2e.FixtureOrg(org, "Undated WMS")},
		"warehouses":    []any{e2e.FixtureWarehouse(wh, "Undated DC", true, org)},
		"products":      []any{e2e.FixtureItem(prod, org, "UND-1")},
		"rateCards":     []any{card},
	})
	servers := []*e2e.Server{e2e.StartServer(t, e2e.BaseEnv(e2e.TestDSN)), e2e.StartServer(t, e2e.BaseEnv(e2e.TestDSN))}
	token := e2e.MintWarehouseToken(t, wh)

	stop := make(chan struct{})
	var closes atomic.Int64
	var loops sync.WaitGroup
	for range 2 {
		loops.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if r := e2e.RunCLI(t, e2e.BaseEnv(e2e.TestDSN), "billing", "close", "--org", org); r.Code != 0 {
					t.Errorf("billing close: exit %d: %s", r.Code, r.Stderr)
					return
				}
				closes.Add(1)
			}
		})
	}

	const senders, each = 4, 40
	var refused sync.Map
	var wg sync.WaitGroup
	for s := range senders {
		wg.Go(func() {
			for i := range each {
				url, ref := servers[(s+i)%len(servers)].URL, fmt.Sprintf("%d-%d", s, i)
				r := e2e.Do(t, http.MethodPost, url+"/v0/warehouse/receipts", map[string]any{"organizationId": org, "reference": "ASN-U-" + ref,
					"items": []any{map[string]any{"productId": prod, "quantity": 3}}}, "Authorization", "Bearer "+token)
				if r.Status != http.StatusCreated {
					refused.Store("receipt "+ref, fmt.Sprintf("%d %s", r.Status, r.Body))
				}
				if i%2 == 0 {
					r = e2e.Do(t, http.MethodPost, url+"/v0/warehouse/services", map[string]any{"organizationId": org, "reference": "SVC-U-" + ref,
						"service": "kitting", "quantity": 1}, "Authorization", "Bearer "+token)
					if r.Status != http.StatusCreated {
						refused.Store("service "+ref, fmt.Sprintf("%d %s", r.Status, r.Body))
					}
				}
			}
		})
	}
	wg.Wait()
	close(stop)
	loops.Wait()
	n := 0
	refused.Range(func(k, v any) bool {
		if n++; n <= 5 {
			t.Errorf("%s: %s", k, v)
		}
		return true
	})
	if n > 0 {
		t.Fatalf("%d undated reports refused while %d closes ran", n, closes.Load())
	}
	if closes.Load() < 2 {
		t.Fatalf("only %d closes ran beside the reports", closes.Load())
	}
	if got := e2e.QueryValue[int64](t, `SELECT on_hand FROM product_stock WHERE product_id = ?`, prod); got != 3*senders*each {
		t.Fatalf("on hand %d, want %d", got, 3*senders*each)
	}
	if got := e2e.QueryValue[int](t, `SELECT count(*) FROM billing_charges WHERE organization_id = ? AND fee IN ('receiving_unit', 'service')`,
		org); got != senders*each+senders*each/2 {
		t.Fatalf("%d charges, want one per report, %d", got, senders*each+senders*each/2)
	}
}

// On hand of one item at one warehouse stays at most 10^12: a fixture row
// past it is refused (exit 1, one line, nothing written), and a receipt
// that would pass it is 422 invalid_parameter naming its line's quantity,
// nothing written; one that reaches it exactly is accepted.
func TestOnHandBound(t *testing.T) {
	const org, wh, prod = "org_e2e_bound", "wh_e2e_bound", "prod_e2e_bound"
	doc := map[string]any{
		"organizations": []any{e2e.FixtureOrg(org, "Bound")},
		"warehouses":    []any{e2e.FixtureWarehouse(wh, "Bound DC", true, org)},
		"products":      []any{e2e.FixtureItem(prod, org, "BND-1")},
		"stock":         []any{map[string]any{"warehouseId": wh, "productId": prod, "onHand": 1_000_000_000_001}},
	}
	path := filepath.Join(t.TempDir(), "fixture.json")
	if err := os.WriteFile(path, e2e.MustJSON(t, doc), 0o600); err != nil {
		t.Fatal(err)
	}
	r := e2e.RunCLI(t, e2e.BaseEnv(e2e.TestDSN), "seed", "--file", path)
	if r.Code != 1 || strings.Count(strings.TrimSpace(r.Stderr), "\n") != 0 || !strings.Contains(r.Stderr, "onHand") {
		t.Fatalf("seed of a stock row past the bound: exit %d, stderr %q; want 1 and one line naming onHand", r.Code, r.Stderr)
	}
	if n := e2e.QueryValue[int](t, `SELECT count(*) FROM organizations WHERE id = ?`, org); n != 0 {
		t.Fatal("the refused fixture wrote its organization")
	}

	doc["stock"] = []any{map[string]any{"warehouseId": wh, "productId": prod, "onHand": 1_000_000_000_000 - 5}}
	e2e.SeedFixture(t, e2e.TestDSN, doc)
	srv := e2e.StartServer(t, e2e.BaseEnv(e2e.TestDSN))
	token := e2e.MintWarehouseToken(t, wh)
	post := func(ref string, q int) e2e.Response {
		return e2e.Do(t, http.MethodPost, srv.URL+"/v0/warehouse/receipts", map[string]any{"organizationId": org, "reference": ref,
			"items": []any{map[string]any{"productId": prod, "quantity": q}}}, "Authorization", "Bearer "+token)
	}
	if p := e2e.WantProblem(t, post("ASN-B-1", 6), 422, "invalid_parameter"); p.Parameter != "items[0].quantity" {
		t.Fatalf("a receipt past the bound names %q", p.Parameter)
	}
	if r := post("ASN-B-2", 5); r.Status != http.StatusCreated {
		t.Fatalf("a receipt up to the bound: %d %s", r.Status, r.Body)
	}
	if got := e2e.QueryValue[int64](t, `SELECT on_hand FROM product_stock WHERE product_id = ?`, prod); got != 1_000_000_000_000 {
		t.Fatalf("on hand %d, want 10^12", got)
	}
	if n := e2e.QueryValue[int](t, `SELECT count(*) FROM warehouse_receipts WHERE organization_id = ?`, org); n != 1 {
		t.Fatalf("%d receipts stored, want 1", n)
	}
}
