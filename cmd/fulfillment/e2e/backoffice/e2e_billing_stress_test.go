package backoffice

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/adapters/postgres/pgtest"
	"github.com/acme3pl/fulfillment/cmd/fulfillment/internal/e2e"
)

// stressFor is how long TestBillingStress keeps its load on.
const stressFor = time.Minute

// Three servers billing every second, while for a minute shipments are
// made and shipped, receipts dated back and services reported through
// them, and operators add charges and credits, close the organization and
// run billing from the command line, all at once. Then every shipment
// shipped, receipt and service accepted and operator charge recorded
// appears exactly once among the charges of all the organization's
// invoices and its open one, and every day's storage is the ledger's.
func TestBillingStress(t *testing.T) {
	e2e.Exclusive(t) // loads the machine by itself: never beside a test that measures deadlines
	const org, wh, prod = "org_e2e_stress", "wh_e2e_stress", "prod_e2e_stress"
	card := e2e.BillE2ECard(time.Now().UTC().Format("2006-01-02"))
	card["organizationId"] = org
	e2e.SeedFixture(t, e2e.TestDSN, map[string]any{
		"organizations": []any{map[string]any{"id": org, "name": "Billing Stress"}},
		"warehouses":    []any{e2e.FixtureWarehouse(wh, "Stress DC", true, org)},
		"products":      []any{map[string]any{"id": prod, "organizationId": org, "sku": "STRESS-1", "name": "S"}},
		"stock":         []any{map[string]any{"warehouseId": wh, "productId": prod, "onHand": 1_000_000}},
		"rateCards":     []any{card},
	})
	env := e2e.BaseEnv(e2e.TestDSN, "BILLING_INTERVAL=1s")
	var servers []*e2e.Server
	for range 3 {
		servers = append(servers, e2e.LaunchServer(t, env))
	}
	for _, s := range servers {
		s.WaitFor(t, "/readyz", http.StatusOK)
	}
	token, wms := e2e.MintToken(t, org, "shipments", "invoices"), e2e.MintWarehouseToken(t, wh)
	pick := func() string { return servers[rand.IntN(len(servers))].URL }

	var (
		mu                                     sync.Mutex
		shipped, receipts, services, operators []string
		refused                                atomic.Int64
		n                                      atomic.Int64
	)
	record := func(list *[]string, id string) {
		mu.Lock()
		defer mu.Unlock()
		*list = append(*list, id)
	}
	// accepted reads an answer of a report that may be refused for a
	// period closed meanwhile (422): anything else is a failure.
	accepted := func(r e2e.Response, what string) bool {
		switch r.Status {
		case http.StatusCreated, http.StatusOK:
			return true
		case http.StatusUnprocessableEntity:
			if strings.Contains(string(r.Body), "period_closed") {
				refused.Add(1)
				return false
			}
		}
		t.Errorf("%s: %d %s", what, r.Status, r.Body)
		return false
	}
	actions := []func(){
		func() { // a shipment made, submitted and shipped
			auth := []string{"Authorization", "Bearer " + token}
			r := e2e.Do(t, "POST", pick()+"/v0/shipments/pick-pack", map[string]any{"warehouseId": wh,
				"items": []any{map[string]any{"productId": prod, "quantity": 1 + rand.IntN(3)}}}, auth...)
			if r.Status != http.StatusCreated {
				t.Errorf("create: %d %s", r.Status, r.Body)
				return
			}
			var s struct{ ID string }
			r.JSON(t, &s)
			if r := e2e.Do(t, "POST", pick()+"/v0/shipments/"+s.ID+"/submit", nil, auth...); r.Status != http.StatusOK {
				t.Errorf("submit: %d %s", r.Status, r.Body)
				return
			}
			r = e2e.Do(t, "POST", pick()+"/v0/warehouse/shipments/"+s.ID+"/ship", map[string]any{"carrier": "UPS",
				"trackingNumber": fmt.Sprintf("1ZSTRESS%010d", n.Add(1))}, "Authorization", "Bearer "+wms)
			if r.Status != http.StatusOK {
				t.Errorf("ship: %d %s", r.Status, r.Body)
				return
			}
			record(&shipped, s.ID)
		},
		func() { // a receipt dated back up to ten seconds (before a close meanwhile: refused)
			ref := fmt.Sprintf("ASN-STRESS-%d", n.Add(1))
			at := time.Now().UTC().Add(-time.Duration(rand.IntN(10_000)) * time.Millisecond).Format(time.RFC3339Nano)
			r := e2e.Do(t, "POST", pick()+"/v0/warehouse/receipts", map[string]any{"organizationId": org, "reference": ref, "receivedAt": at,
				"items": []any{map[string]any{"productId": prod, "quantity": 1 + rand.IntN(20)}}}, "Authorization", "Bearer "+wms)
			if accepted(r, "receipt") {
				record(&receipts, ref)
			}
		},
		func() { // a service dated back up to ten seconds
			ref := fmt.Sprintf("SVC-STRESS-%d", n.Add(1))
			at := time.Now().UTC().Add(-time.Duration(rand.IntN(10_000)) * time.Millisecond).Format(time.RFC3339Nano)
			r := e2e.Do(t, "POST", pick()+"/v0/warehouse/services", map[string]any{"organizationId": org, "reference": ref,
				"service": "kitting", "quantity": 1 + rand.IntN(4), "performedAt": at}, "Authorization", "Bearer "+wms)
			if accepted(r, "service") {
				record(&services, ref)
			}
		},
		func() { // an operator's charge or credit
			ref := fmt.Sprintf("OP-STRESS-%d", n.Add(1))
			cost := []string{"-700", "300", "1200"}[rand.IntN(3)]
			if r := e2e.RunCLI(t, env, "charges", "add", "--org", org, "--reference", ref, "--title", "Adjustment",
				"--quantity", "1", "--unit-cost", cost); r.Code != 0 {
				t.Errorf("charges add: exit %d: %s", r.Code, r.Stderr)
				return
			}
			record(&operators, ref)
		},
		func() { // an operator's close
			if r := e2e.RunCLI(t, env, "billing", "close", "--org", org); r.Code != 0 {
				t.Errorf("billing close: exit %d: %s", r.Code, r.Stderr)
			}
		},
		func() { // an operator's run
			if r := e2e.RunCLI(t, env, "billing", "run"); r.Code != 0 {
				t.Errorf("billing run: exit %d: %s", r.Code, r.Stderr)
			}
		},
	}
	// Shipments most often; the command line's processes least.
	weights := []int{12, 4, 4, 2, 1, 1}
	var deck []func()
	for i, w := range weights {
		for range w {
			deck = append(deck, actions[i])
		}
	}
	stop := time.Now().Add(stressFor)
	var wg sync.WaitGroup
	for range 6 {
		wg.Go(func() {
			for time.Now().Before(stop) && !t.Failed() {
				deck[rand.IntN(len(deck))]()
			}
		})
	}
	wg.Wait()
	e2e.MustCLI(t, env, "billing", "run")
	t.Logf("%d shipped, %d receipts, %d services, %d operator charges; %d reports refused for a closed period",
		len(shipped), len(receipts), len(services), len(operators), refused.Load())

	// Every charge of every invoice, finalized or open.
	type charge struct {
		Fee    string
		Source struct{ Type, ID string }
	}
	var all []charge
	for skip := 0; ; skip += 10 {
		var page []struct{ ID string }
		r := e2e.GetJSON(t, servers[0], fmt.Sprintf("/v0/invoices?take=10&skip=%d", skip), token, &page)
		if r.Status != http.StatusOK {
			t.Fatalf("invoices: %d %s", r.Status, r.Body)
		}
		for _, inv := range page {
			for cskip := 0; ; cskip += 1000 {
				var cs []charge
				r := e2e.GetJSON(t, servers[1], fmt.Sprintf("/v0/invoices/%s/charges?take=1000&skip=%d", inv.ID, cskip), token, &cs)
				if r.Status != http.StatusOK {
					t.Fatalf("charges of %s: %d %s", inv.ID, r.Status, r.Body)
				}
				all = append(all, cs...)
				if r.Header.Get("Link") == "" {
					break
				}
			}
		}
		if r.Header.Get("Link") == "" {
			break
		}
	}
	var open []charge
	if err := json.Unmarshal([]byte(e2e.MustCLI(t, env, "invoices", "preview", "--org", org, "--charges")), &open); err != nil {
		t.Fatal(err)
	}
	all = append(all, open...)
	count := map[string]int{}
	for _, c := range all {
		count[c.Fee+" "+c.Source.Type+" "+c.Source.ID]++
	}
	for _, want := range []struct {
		fee, source string
		ids         []string
	}{
		{"pick_pack_order", "shipment", shipped},
		{"receiving_unit", "receipt", receipts},
		{"kitting", "service", services},
		{"operator", "operator", operators},
	} {
		missing, twice := 0, 0
		for _, id := range want.ids {
			switch count[want.fee+" "+want.source+" "+id] {
			case 0:
				missing++
			case 1:
			default:
				twice++
			}
		}
		if missing+twice > 0 {
			t.Errorf("%s of %d %ss: %d never charged, %d charged more than once", want.fee, len(want.ids), want.source, missing, twice)
		}
	}
	if len(shipped) == 0 || len(receipts) == 0 || len(services) == 0 || len(operators) == 0 {
		t.Errorf("the load made too little to check: %d, %d, %d, %d", len(shipped), len(receipts), len(services), len(operators))
	}
	stressStorageAgrees(t, org)
}

// stressStorageAgrees checks every day of org's storage billed so far
// against the ledger: the units on hand at the end of the day (UTC).
func stressStorageAgrees(t *testing.T, org string) {
	t.Helper()
	db := pgtest.Open(t, e2e.TestDSN)
	rows, err := db.Query(`WITH billed AS (
	SELECT split_part(source_id, '@', 2)::date AS day, (sum(quantity_milli) / 1000)::bigint AS q, count(*) AS n
	FROM billing_charges WHERE organization_id = ? AND fee = 'storage_unit_month' GROUP BY 1)
SELECT b.day, b.q, b.n, (SELECT coalesce(sum(quantity), 0)::bigint FROM stock_movements m
	WHERE m.organization_id = ? AND m.product_id IS NOT NULL AND m.occurred_at < (b.day + 1)::timestamp AT TIME ZONE 'UTC')
FROM billed b`, org, org)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var day time.Time
		var q, n, ledger int64
		if err := rows.Scan(&day, &q, &n, &ledger); err != nil {
			t.Fatal(err)
		}
		if q != ledger || n != 1 {
			t.Errorf("storage of %s: %d units in %d charge(s), the ledger says %d", day.Format(time.DateOnly), q, n, ledger)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
}
