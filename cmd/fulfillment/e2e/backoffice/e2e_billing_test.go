package backoffice

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/adapters/postgres/pgtest"
	"github.com/acme3pl/fulfillment/cmd/fulfillment/internal/e2e"
	"github.com/acme3pl/fulfillment/domain"
)

func billE2ESQL(t *testing.T, q string, args ...any) {
	t.Helper()
	db := pgtest.Open(t, e2e.TestDSN)
	if _, err := db.ExecContext(context.Background(), q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// The worked example end to end through the real binary: a rate card from
// the fixture, orders through the intake, ships, an SPD shipment, a
// receipt, a service and a credit, then `billing close`: the invoice in
// GET /v0/invoices line by line, cent by cent, and the operator's status
// changes.
func TestBillingEndToEnd(t *testing.T) {
	first := time.Now().UTC().Format("2006-01") + "-01"
	e2e.SeedFixture(t, e2e.TestDSN, map[string]any{
		"organizations": []any{map[string]any{"id": e2e.BillE2EOrg, "name": "Billing E2E", "defaultWarehouseId": e2e.BillE2EWH}},
		"warehouses":    []any{e2e.FixtureWarehouse(e2e.BillE2EWH, "Billing DC", true, e2e.BillE2EOrg)},
		"products": []any{
			map[string]any{"id": "prod_e2e_bill_sock", "organizationId": e2e.BillE2EOrg, "sku": "SOCK-MER-CH-4346", "name": "Sock"},
			map[string]any{"id": "prod_e2e_bill_key", "organizationId": e2e.BillE2EOrg, "sku": "KEY-LTH-01", "name": "Key"},
		},
		"cartons": []any{map[string]any{"id": "ctn_e2e_bill", "organizationId": e2e.BillE2EOrg, "sku": "CTN-SOCK", "name": "Socks ×24"}},
		"stock": []any{
			map[string]any{"warehouseId": e2e.BillE2EWH, "productId": "prod_e2e_bill_sock", "onHand": 100},
			map[string]any{"warehouseId": e2e.BillE2EWH, "productId": "prod_e2e_bill_key", "onHand": 100},
		},
		"apiKeys":   []any{map[string]any{"id": "key_e2e_bill", "organizationId": e2e.BillE2EOrg, "key": e2e.BillE2EKey, "scopes": []string{"shipments", "inventory"}}},
		"rateCards": []any{e2e.BillE2ECard(first)},
	})
	srv := e2e.StartServer(t, e2e.BaseEnv(e2e.TestDSN, "BILLING_INTERVAL=1s"))
	env := e2e.BaseEnv(e2e.TestDSN)

	// Two orders through the intake: two Pick & Pack shipments of 3 units.
	var shipments []string
	for _, id := range []string{"990001", "990002"} {
		shipments = append(shipments, e2e.WantShipment(t, e2e.Deliver(t, srv, e2e.BillE2EKey, e2e.WithID(t, e2e.IntakeSample(t, "orders-create.json"), id, nil))))
	}
	// The warehouse ships them (the ship route's UPDATE), and an SPD
	// shipment of 3 cartons; a receipt of 20 units and 2 cartons; 1.5
	// labour hours.
	for _, id := range shipments {
		billE2ESQL(t, `UPDATE shipments SET status = 'shipped', shipped_at = now(), tracking_carrier = 'UPS', tracking_number = '1Z'||id WHERE id = ?`, id)
	}
	billE2ESQL(t, `INSERT INTO shipments (id, organization_id, kind, status, warehouse_id, test, created_at, updated_at, submitted_at,
	shipped_at, tracking_carrier, tracking_number) VALUES ('shp_e2e_bill_spd', ?, 'spd', 'shipped', ?, true, now(), now(), now(), now(), 'UPS', '1ZSPD')`,
		e2e.BillE2EOrg, e2e.BillE2EWH)
	billE2ESQL(t, `INSERT INTO shipment_cartons (organization_id, shipment_id, carton_id, position, quantity) VALUES (?, 'shp_e2e_bill_spd', 'ctn_e2e_bill', 0, 3)`, e2e.BillE2EOrg)
	billE2ESQL(t, `INSERT INTO warehouse_receipts (id, warehouse_id, organization_id, reference, received_at, received_at_given, created_at)
	VALUES ('rcp_e2e_bill', ?, ?, 'ASN-1', now(), false, now())`, e2e.BillE2EWH, e2e.BillE2EOrg)
	billE2ESQL(t, `INSERT INTO warehouse_receipt_lines (receipt_id, organization_id, position, product_id, carton_id, quantity) VALUES
	('rcp_e2e_bill', ?, 0, 'prod_e2e_bill_sock', NULL, 20), ('rcp_e2e_bill', ?, 1, NULL, 'ctn_e2e_bill', 2)`, e2e.BillE2EOrg, e2e.BillE2EOrg)
	billE2ESQL(t, `INSERT INTO warehouse_services (id, warehouse_id, organization_id, reference, service, quantity_milli, performed_at,
	performed_at_given, created_at) VALUES ('svc_e2e_bill', ?, ?, 'LAB-1', 'labor_hour', 1500, now(), false, now())`, e2e.BillE2EWH, e2e.BillE2EOrg)
	e2e.MustCLI(t, env, "charges", "add", "--org", e2e.BillE2EOrg, "--reference", "RMA-7", "--title", "Damage credit",
		"--description", "1 sock damaged", "--quantity", "1", "--unit-cost", "-500")
	if out := e2e.MustCLI(t, env, "charges", "add", "--org", e2e.BillE2EOrg, "--reference", "RMA-7", "--title", "Damage credit",
		"--quantity", "1", "--unit-cost", "-500"); !strings.Contains(out, "nothing changed") {
		t.Errorf("the same reference again: %q", out)
	}

	// The open invoice: hidden from the API, shown by the preview.
	var preview []struct {
		ID, Status  string
		TotalAmount int64 `json:"totalAmount"`
	}
	if err := json.Unmarshal([]byte(e2e.MustCLI(t, env, "invoices", "preview", "--org", e2e.BillE2EOrg)), &preview); err != nil {
		t.Fatal(err)
	}
	if len(preview) != 1 || preview[0].Status != "accumulating" || preview[0].TotalAmount != 8650 {
		t.Fatalf("preview %+v", preview)
	}
	token := e2e.MintToken(t, e2e.BillE2EOrg, "invoices")
	if r := e2e.Do(t, "GET", srv.URL+"/v0/invoices/"+preview[0].ID, nil, "Authorization", "Bearer "+token); r.Status != 404 {
		t.Errorf("the accumulating invoice answers %d, want 404", r.Status)
	}

	out := e2e.MustCLI(t, env, "billing", "close", "--org", e2e.BillE2EOrg)
	m := regexp.MustCompile(`^finalized (INV-\d{4}-\d{6}) (inv_\w+) ` + e2e.BillE2EOrg + ` .*: 7 lines, \$86\.50\n$`).FindStringSubmatch(out)
	if m == nil || m[2] != preview[0].ID {
		t.Fatalf("billing close printed %q, want the previewed invoice %s finalized", out, preview[0].ID)
	}
	var inv struct {
		ID, Status, Name, Notes, DueDate string
		TotalAmount                      int64 `json:"totalAmount"`
		Items                            []struct {
			Title, Description  string
			Quantity            json.Number
			UnitCost, TotalCost int64
		}
	}
	e2e.GetJSON(t, srv, "/v0/invoices/"+m[2], token, &inv)
	type line struct {
		title, desc, qty string
		cost, total      int64
	}
	want := []line{
		{"Pick & Pack orders", e2e.BillE2EWH + ": 2 shipments", "2", 250, 500},
		{"Pick & Pack additional units", e2e.BillE2EWH + ": 2 shipments", "4", 40, 160},
		{"SPD cartons", e2e.BillE2EWH + ": 1 shipment", "3", 400, 1200},
		{"Receiving (units)", e2e.BillE2EWH + ": 1 receipt", "20", 15, 300},
		{"Receiving (cartons)", e2e.BillE2EWH + ": 1 receipt", "2", 120, 240},
		{"Labour", e2e.BillE2EWH + ": 1 service", "1.5", 4500, 6750},
		{"Damage credit", "1 sock damaged", "1", -500, -500},
	}
	if len(inv.Items) != len(want) {
		t.Fatalf("items %+v, want %+v", inv.Items, want)
	}
	for i, w := range want {
		it := inv.Items[i]
		if got := (line{it.Title, it.Description, it.Quantity.String(), it.UnitCost, it.TotalCost}); got != w {
			t.Errorf("item %d = %+v, want %+v", i, got, w)
		}
	}
	if inv.Status != "unpaid" || inv.TotalAmount != 8650 || !strings.HasPrefix(inv.Name, "Fulfillment, ") ||
		!strings.HasPrefix(inv.Notes, "Payment terms: net 30 days") {
		t.Errorf("invoice %+v", inv)
	}
	// Every line is the sum of the charges behind it, each naming its fact.
	var charges []struct {
		ID, Fee, Title string
		Quantity       json.Number
		UnitCost       int64
		Source         struct{ Type, ID string }
	}
	if r := e2e.GetJSON(t, srv, "/v0/invoices/"+m[2]+"/charges?take=1000", token, &charges); r.Status != 200 {
		t.Fatalf("charges: %d %s", r.Status, r.Body)
	}
	byLine := map[string]int64{}
	for _, c := range charges {
		q, err := domain.ParseQuantity(c.Quantity.String())
		if err != nil || c.Source.ID == "" || c.Source.Type == "" {
			t.Fatalf("charge %+v (%v)", c, err)
		}
		byLine[fmt.Sprintf("%s/%d", c.Title, c.UnitCost)] += q.Milli()
	}
	for _, it := range inv.Items {
		q, _ := domain.ParseQuantity(it.Quantity.String())
		if got := byLine[fmt.Sprintf("%s/%d", it.Title, it.UnitCost)]; got != q.Milli() {
			t.Errorf("line %q: charges sum to %d thousandths, the line has %s", it.Title, got, it.Quantity)
		}
	}
	csvAnswer := e2e.Do(t, "GET", srv.URL+"/v0/invoices/"+m[2]+"/charges", nil, "Authorization", "Bearer "+token, "Accept", "text/csv")
	rows, err := csv.NewReader(bytes.NewReader(csvAnswer.Body)).ReadAll()
	if csvAnswer.Status != 200 || err != nil || len(rows) != len(charges)+1 || rows[0][7] != "source.type" {
		t.Fatalf("charges as CSV: %d, %d rows (%v), want %d and a header:\n%s", csvAnswer.Status, len(rows), err, len(charges)+1, csvAnswer.Body)
	}
	if r := e2e.Do(t, "GET", srv.URL+"/v0/invoices/inv_nobody/charges", nil, "Authorization", "Bearer "+token); r.Status != 404 {
		t.Errorf("charges of an unknown invoice: %d", r.Status)
	}
	var list []struct{ ID string }
	e2e.GetJSON(t, srv, "/v0/invoices?search="+m[1], token, &list)
	if len(list) != 1 || list[0].ID != m[2] {
		t.Errorf("search by key %s: %+v", m[1], list)
	}

	// The operator's status changes: allowed ones only.
	e2e.MustCLI(t, env, "invoices", "status", "--id", m[2], "--to", "paid")
	if r := e2e.RunCLI(t, env, "invoices", "status", "--id", m[2], "--to", "unpaid"); r.Code != 1 {
		t.Errorf("paid → unpaid: exit %d, want 1", r.Code)
	}
	e2e.GetJSON(t, srv, "/v0/invoices/"+m[2], token, &inv)
	if inv.Status != "paid" {
		t.Errorf("status %s, want paid", inv.Status)
	}
	// A card reaching into the closed period: refused, exit 1.
	card := e2e.MustJSON(t, e2e.BillE2ECard(first))
	path := filepath.Join(t.TempDir(), "card.json")
	if err := os.WriteFile(path, card, 0o600); err != nil {
		t.Fatal(err)
	}
	if r := e2e.RunCLI(t, env, "rates", "set", "--org", e2e.BillE2EOrg, "--file", path); r.Code != 1 || !strings.Contains(r.Stderr, "closed period") {
		t.Errorf("rates set into a closed period: exit %d, %s", r.Code, r.Stderr)
	}
	// No such organization: a preview is refused, exit 1 (one line on stderr).
	if r := e2e.RunCLI(t, env, "invoices", "preview", "--org", "no_such_org"); r.Code != 1 || !strings.Contains(r.Stderr, "no_such_org") {
		t.Errorf("invoices preview --org no_such_org: exit %d, %q", r.Code, r.Stderr)
	}
	// Usage mistakes exit 2; a run finalizes nothing more.
	if r := e2e.RunCLI(t, env, "billing", "close"); r.Code != 2 {
		t.Errorf("billing close without --org: exit %d", r.Code)
	}
	if out := e2e.MustCLI(t, env, "billing", "run"); !strings.HasPrefix(out, "billing run: ") {
		t.Errorf("billing run printed %q", out)
	}
	if s := srv.Logs(); !strings.Contains(s, `"msg":"billing run: `) {
		t.Errorf("the server logged no billing run:\n%s", s)
	}
}

// Three servers billing every second and three `billing run`s at once, on
// an organization whose card starts three months back: each past month is
// finalized once (its minimum), with keys of their own.
func TestBillingSeveralServersAndRuns(t *testing.T) {
	const org = "org_e2e_bill_many"
	now := time.Now().UTC()
	from := time.Date(now.Year(), now.Month()-3, 1, 0, 0, 0, 0, time.UTC)
	card := e2e.BillE2ECard(from.Format("2006-01-02"))
	card["organizationId"] = org
	e2e.SeedFixture(t, e2e.TestDSN, map[string]any{
		"organizations": []any{map[string]any{"id": org, "name": "Billing Many"}},
		"rateCards":     []any{card},
	})
	env := e2e.BaseEnv(e2e.TestDSN, "BILLING_INTERVAL=1s")
	var servers []*e2e.Server
	for range 3 {
		servers = append(servers, e2e.LaunchServer(t, env))
	}
	done := make(chan e2e.Result, 3)
	for range 3 {
		go func() { done <- e2e.RunCLI(t, e2e.BaseEnv(e2e.TestDSN), "billing", "run") }()
	}
	for range 3 {
		r := <-done
		if r.Code != 0 {
			t.Errorf("billing run: exit %d: %s", r.Code, r.Stderr)
		}
		t.Logf("billing run: %s", r.Stdout)
	}
	for _, s := range servers {
		s.WaitFor(t, "/readyz", 200)
	}
	token := e2e.MintToken(t, org, "invoices")
	type invoice struct {
		ID, Name    string
		TotalAmount int64 `json:"totalAmount"`
	}
	var list []invoice
	// The months past their grace now: three, or two in the first day after
	// a month's end.
	want := 3
	if now.Before(time.Date(now.Year(), now.Month(), 2, 0, 0, 0, 0, time.UTC)) {
		want = 2
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if r := e2e.GetJSON(t, servers[0], "/v0/invoices", token, &list); r.Status != 200 {
			t.Fatalf("GET /v0/invoices: %d %s", r.Status, r.Body)
		}
		if len(list) >= want || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	time.Sleep(2 * time.Second) // more runs on every server: nothing more
	list = nil
	if r := e2e.GetJSON(t, servers[1], "/v0/invoices", token, &list); r.Status != 200 {
		t.Fatalf("GET /v0/invoices: %d %s", r.Status, r.Body)
	}
	names := map[string]bool{}
	for _, inv := range list {
		names[inv.Name] = true
		if inv.TotalAmount != 5000 {
			t.Errorf("%s totals %d, want the minimum", inv.Name, inv.TotalAmount)
		}
	}
	if len(list) != want || len(names) != want {
		t.Fatalf("%d invoices (%d months), want %d: %+v", len(list), len(names), want, list)
	}
	for m := range want {
		name := "Fulfillment, " + from.AddDate(0, m, 0).Format("January 2006")
		if !names[name] {
			t.Errorf("no invoice %q: %v", name, names)
		}
	}
}

// The warehouse's reports through their routes: a receipt and a service
// accrue their charges in their own transaction; a service the card does
// not hold is 422 unknown_service; after `billing close`, a report dated
// into the closed period is 422 period_closed.
func TestBillingWarehouseReports(t *testing.T) {
	const org, wh = "org_e2e_bill_wms", "wh_e2e_bill_wms"
	card := e2e.BillE2ECard(time.Now().UTC().Format("2006-01") + "-01")
	card["organizationId"] = org
	e2e.SeedFixture(t, e2e.TestDSN, map[string]any{
		"organizations": []any{map[string]any{"id": org, "name": "Billing WMS"}},
		"warehouses":    []any{e2e.FixtureWarehouse(wh, "Billing WMS DC", true, org)},
		"products":      []any{map[string]any{"id": "prod_e2e_bill_wms", "organizationId": org, "sku": "WMS-1", "name": "W"}},
		"rateCards":     []any{card},
	})
	srv := e2e.StartServer(t, e2e.BaseEnv(e2e.TestDSN))
	wms := e2e.MintWarehouseToken(t, wh)
	post := func(path string, body map[string]any) e2e.Response {
		return e2e.Do(t, "POST", srv.URL+path, body, "Authorization", "Bearer "+wms)
	}
	if r := post("/v0/warehouse/receipts", map[string]any{"organizationId": org, "reference": "ASN-W1",
		"items": []any{map[string]any{"productId": "prod_e2e_bill_wms", "quantity": 10}}}); r.Status != 201 {
		t.Fatalf("receipt: %d %s", r.Status, r.Body)
	}
	if r := post("/v0/warehouse/services", map[string]any{"organizationId": org, "reference": "K-1", "service": "kitting",
		"quantity": 4}); r.Status != 201 {
		t.Fatalf("service: %d %s", r.Status, r.Body)
	}
	e2e.WantProblem(t, post("/v0/warehouse/services", map[string]any{"organizationId": org, "reference": "K-2", "service": "gift_wrap",
		"quantity": 1}), 422, "unknown_service")

	before := time.Now().UTC().Add(-time.Second).Format("2006-01-02T15:04:05.000Z")
	out := e2e.MustCLI(t, e2e.BaseEnv(e2e.TestDSN), "billing", "close", "--org", org)
	m := regexp.MustCompile(`^finalized (INV-\d{4}-\d{6}) (inv_\w+) `).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("billing close printed %q", out)
	}
	var inv struct {
		TotalAmount int64 `json:"totalAmount"`
		Items       []struct {
			Title               string
			Quantity            json.Number
			UnitCost, TotalCost int64
		}
	}
	e2e.GetJSON(t, srv, "/v0/invoices/"+m[2], e2e.MintToken(t, org, "invoices"), &inv)
	got := []string{}
	for _, it := range inv.Items {
		got = append(got, fmt.Sprintf("%s %s×%d=%d", it.Title, it.Quantity, it.UnitCost, it.TotalCost))
	}
	want := []string{"Receiving (units) 10×15=150", "Kitting 4×75=300", "Monthly minimum 1×4550=4550"}
	if strings.Join(got, "; ") != strings.Join(want, "; ") || inv.TotalAmount != 5000 {
		t.Errorf("lines %q total %d, want %q total 5000", got, inv.TotalAmount, want)
	}
	e2e.WantProblem(t, post("/v0/warehouse/receipts", map[string]any{"organizationId": org, "reference": "ASN-W2", "receivedAt": before,
		"items": []any{map[string]any{"productId": "prod_e2e_bill_wms", "quantity": 1}}}), 422, "period_closed")
	e2e.WantProblem(t, post("/v0/warehouse/services", map[string]any{"organizationId": org, "reference": "K-3", "service": "kitting",
		"quantity": 1, "performedAt": before}), 422, "period_closed")
}
