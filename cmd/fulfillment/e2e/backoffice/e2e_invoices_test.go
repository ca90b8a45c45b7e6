package backoffice

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/cmd/fulfillment/internal/e2e"
)

const (
	invE2EOrgA = "org_e2e_inv_a"
	invE2EOrgB = "org_e2e_inv_b"
)

var invE2ET0 = time.Date(2026, 3, 1, 8, 30, 0, 0, time.UTC)

func invE2ETime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// invE2EInvoice is one fixture invoice; i spreads the times.
func invE2EInvoice(id, org, status string, i int, deleted bool, name, notes string, items ...map[string]any) map[string]any {
	created := invE2ET0.Add(time.Duration(i)*time.Hour + 123*time.Millisecond)
	var deletedAt any
	if deleted {
		deletedAt = invE2ETime(created.Add(time.Hour))
	}
	if items == nil {
		items = []map[string]any{}
	}
	return map[string]any{
		"id": id, "organizationId": org, "key": fmt.Sprintf("INV-2026-%06d", 100+i), "status": status,
		"name": name, "notes": notes, "currency": "USD",
		"dueDate":   invE2ETime(time.Date(2026, 4, 1+i%5, 0, 0, 0, 0, time.UTC)),
		"createdAt": invE2ETime(created), "updatedAt": invE2ETime(created.Add(time.Duration(24-i) * time.Hour)),
		"deletedAt": deletedAt, "items": items,
	}
}

func invE2EItem(id, title, desc, quantity string, unitCost int64) map[string]any {
	return map[string]any{"id": id, "title": title, "description": desc, "quantity": json.Number(quantity), "unitCost": unitCost}
}

func invE2EFixture() map[string]any {
	a := func(n int) string { return fmt.Sprintf("inv_e2e_a%02d", n) }
	statuses := []string{"unpaid", "pending_payment", "paid", "cancelled", "refunded", "collecting"}
	var invoices []any
	for n := range 12 {
		invoices = append(invoices, invE2EInvoice(a(n), invE2EOrgA, statuses[n%6], n, false,
			fmt.Sprintf("Fulfillment fees week %d", n), "",
			invE2EItem(a(n)+"_li1", "Pick & pack", fmt.Sprintf("%d orders", n+1), "62", 25),
			invE2EItem(a(n)+"_li2", "Labour", "1.5 hours of relabelling", "1.5", 999)))
	}
	invoices = append(invoices,
		invE2EInvoice("inv_e2e_storage", invE2EOrgA, "paid", 12, false, "October STORAGE", "50% prepaid; rest net 30",
			invE2EItem("inv_e2e_storage_li1", "Pallet storage", "2 pallets × 31 days", "62", 25),
			invE2EItem("inv_e2e_storage_li2", "Tape", "half a cent", "0.005", 100)),
		invE2EInvoice("inv_e2e_draft", invE2EOrgA, "draft", 13, false, "Draft storage", ""),
		invE2EInvoice("inv_e2e_accumulating", invE2EOrgA, "accumulating", 14, false, "Accumulating storage", ""),
		invE2EInvoice("inv_e2e_deleted", invE2EOrgA, "paid", 15, true, "Deleted storage", ""),
		invE2EInvoice("inv_e2e_b1", invE2EOrgB, "unpaid", 16, false, "Storage of B", ""),
	)
	return map[string]any{
		"organizations": []any{
			map[string]any{"id": invE2EOrgA, "name": "Invoices A"},
			map[string]any{"id": invE2EOrgB, "name": "Invoices B"},
		},
		"invoices": invoices,
	}
}

var seedInvE2E = e2e.SeedFixtureOnce("invoices", invE2EFixture)

// invE2EServer seeds the invoice fixture once and starts a server.
func invE2EServer(t *testing.T) *e2e.Server {
	t.Helper()
	seedInvE2E(t)
	return e2e.StartServer(t, e2e.BaseEnv(e2e.TestDSN))
}

func invE2EAuth(tok string) []string { return []string{"Authorization", "Bearer " + tok} }

// invE2EList gets a list and decodes it, numbers kept as written.
func invE2EList(t *testing.T, srv *e2e.Server, tok, query string) ([]map[string]any, e2e.Response) {
	t.Helper()
	r := e2e.Do(t, "GET", srv.URL+"/v0/invoices"+query, nil, invE2EAuth(tok)...)
	if r.Status != 200 || r.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("GET /v0/invoices%s: %d %s: %s", query, r.Status, r.Header.Get("Content-Type"), r.Body)
	}
	var out []map[string]any
	dec := json.NewDecoder(bytes.NewReader(r.Body))
	dec.UseNumber()
	if err := dec.Decode(&out); err != nil || out == nil {
		t.Fatalf("GET /v0/invoices%s: not a JSON array (%v): %s", query, err, r.Body)
	}
	return out, r
}

func invE2EIDs(invs []map[string]any) []string {
	ids := make([]string, len(invs))
	for i, inv := range invs {
		ids[i], _ = inv["id"].(string)
	}
	return ids
}

var invE2ETimestamp = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$`)

// invE2EWantShape checks that an invoice has exactly the fields of api/openapi.yaml.
func invE2EWantShape(t *testing.T, inv map[string]any) {
	t.Helper()
	want := []string{"id", "status", "name", "notes", "dueDate", "items", "totalAmount", "currency", "createdAt", "updatedAt", "deletedAt"}
	var got []string
	for k := range inv {
		got = append(got, k)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("invoice fields %v, want %v", got, want)
	}
	if inv["deletedAt"] != nil || inv["currency"] != "USD" {
		t.Fatalf("deletedAt %v currency %v", inv["deletedAt"], inv["currency"])
	}
	for _, f := range []string{"dueDate", "createdAt", "updatedAt"} {
		if s, _ := inv[f].(string); !invE2ETimestamp.MatchString(s) {
			t.Fatalf("%s %q is not like 2026-11-22T01:15:05.123Z", f, inv[f])
		}
	}
	items, ok := inv["items"].([]any)
	if !ok {
		t.Fatalf("items %v", inv["items"])
	}
	var sum int64
	for _, it := range items {
		m := it.(map[string]any)
		var keys []string
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if !slices.Equal(keys, []string{"description", "id", "quantity", "title", "totalCost", "unitCost"}) {
			t.Fatalf("item fields %v", keys)
		}
		tc, err := m["totalCost"].(json.Number).Int64()
		if err != nil {
			t.Fatalf("totalCost %v is not an integer", m["totalCost"])
		}
		sum += tc
	}
	if total, err := inv["totalAmount"].(json.Number).Int64(); err != nil || total != sum {
		t.Fatalf("totalAmount %v, items add up to %d", inv["totalAmount"], sum)
	}
}

func TestInvoicesListAPI(t *testing.T) {
	srv := invE2EServer(t)
	tok := e2e.MintToken(t, invE2EOrgA, "invoices")

	// Default: newest first, ten, a Link to the rest.
	invs, r := invE2EList(t, srv, tok, "")
	want := []string{"inv_e2e_storage", "inv_e2e_a11", "inv_e2e_a10", "inv_e2e_a09", "inv_e2e_a08", "inv_e2e_a07",
		"inv_e2e_a06", "inv_e2e_a05", "inv_e2e_a04", "inv_e2e_a03"}
	if got := invE2EIDs(invs); !slices.Equal(got, want) {
		t.Fatalf("default page %v, want %v", got, want)
	}
	for _, inv := range invs {
		invE2EWantShape(t, inv)
	}
	if link := r.Header.Get("Link"); link != `</v0/invoices?skip=10&take=10>; rel="next"` {
		t.Fatalf("Link %q", link)
	}
	if !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(r.Header.Get("X-Trace-Id")) {
		t.Fatalf("X-Trace-Id %q", r.Header.Get("X-Trace-Id"))
	}
	storage := invs[0]
	if storage["createdAt"] != invE2ETime(invE2ET0.Add(12*time.Hour+123*time.Millisecond)) ||
		storage["updatedAt"] != invE2ETime(invE2ET0.Add(24*time.Hour+123*time.Millisecond)) ||
		storage["dueDate"] != "2026-04-03T00:00:00.000Z" || storage["name"] != "October STORAGE" ||
		storage["notes"] != "50% prepaid; rest net 30" || storage["status"] != "paid" {
		t.Fatalf("invoice %v", storage)
	}
	items := storage["items"].([]any)
	first, second := items[0].(map[string]any), items[1].(map[string]any)
	if first["id"] != "inv_e2e_storage_li1" || first["quantity"] != json.Number("62") || first["unitCost"] != json.Number("25") ||
		first["totalCost"] != json.Number("1550") || second["quantity"] != json.Number("0.005") || second["totalCost"] != json.Number("1") ||
		storage["totalAmount"] != json.Number("1551") {
		t.Fatalf("items %v, total %v", items, storage["totalAmount"])
	}
	if a00 := e2e.Do(t, "GET", srv.URL+"/v0/invoices/inv_e2e_a00", nil, invE2EAuth(tok)...); !bytes.Contains(a00.Body, []byte(`"quantity":1.5,`)) {
		t.Fatalf("quantity 1.5 not written as a JSON number: %s", a00.Body)
	}

	// The Link leads to the rest; the last page has none.
	link := strings.TrimSuffix(strings.TrimPrefix(r.Header.Get("Link"), "<"), `>; rel="next"`)
	rest, r := invE2EList(t, srv, tok, strings.TrimPrefix(link, "/v0/invoices"))
	if got := invE2EIDs(rest); !slices.Equal(got, []string{"inv_e2e_a02", "inv_e2e_a01", "inv_e2e_a00"}) || r.Header.Get("Link") != "" {
		t.Fatalf("second page %v, Link %q", got, r.Header.Get("Link"))
	}

	tests := []struct {
		query string
		want  []string
		link  string
	}{
		{query: "?status=unpaid", want: []string{"inv_e2e_a06", "inv_e2e_a00"}},
		{query: "?status=collecting&sortOrder=asc", want: []string{"inv_e2e_a05", "inv_e2e_a11"}},
		// every updatedAt is the same: the order is the ids'
		{query: "?sortBy=updatedAt&sortOrder=asc&take=3", want: []string{"inv_e2e_a00", "inv_e2e_a01", "inv_e2e_a02"},
			link: `</v0/invoices?skip=3&sortBy=updatedAt&sortOrder=asc&take=3>; rel="next"`},
		{query: "?sortBy=updatedAt&take=3", want: []string{"inv_e2e_storage", "inv_e2e_a11", "inv_e2e_a10"},
			link: `</v0/invoices?skip=3&sortBy=updatedAt&take=3>; rel="next"`},
		// dueDate ties (day 1 + i%5) are broken by id in the same direction
		{query: "?sortBy=dueDate&sortOrder=asc&take=4", want: []string{"inv_e2e_a00", "inv_e2e_a05", "inv_e2e_a10", "inv_e2e_a01"},
			link: `</v0/invoices?skip=4&sortBy=dueDate&sortOrder=asc&take=4>; rel="next"`},
		{query: "?sortBy=dueDate&sortOrder=desc&take=4", want: []string{"inv_e2e_a09", "inv_e2e_a04", "inv_e2e_a08", "inv_e2e_a03"},
			link: `</v0/invoices?skip=4&sortBy=dueDate&sortOrder=desc&take=4>; rel="next"`},
		{query: "?sortBy=createdAt&sortOrder=desc&skip=12", want: []string{"inv_e2e_a00"}},
		{query: "?search=storage", want: []string{"inv_e2e_storage"}},                   // drafts, deleted and B's left out
		{query: "?search=%20%20PALLET%20Storage%20", want: []string{"inv_e2e_storage"}}, // trimmed, any case
		{query: "?search=INV-2026-000112", want: []string{"inv_e2e_storage"}},           // the key
		{query: "?search=50%25", want: []string{"inv_e2e_storage"}},                     // a literal %
		{query: "?search=%25", want: []string{"inv_e2e_storage"}},                       // only % (short term)
		{query: "?search=e2e_a1", want: []string{"inv_e2e_a11", "inv_e2e_a10"}},         // ID, _ literal
		{query: "?search=e2e%5Fa1&status=paid", want: []string{}},                       // with a status
		{query: "?search=relabelling&take=2", want: []string{"inv_e2e_a11", "inv_e2e_a10"}, // item description
			link: `</v0/invoices?search=relabelling&skip=2&take=2>; rel="next"`},
		{query: "?search=", want: invE2EIDs(invs), // empty: no filter
			link: `</v0/invoices?search=&skip=10&take=10>; rel="next"`},
		{query: "?search=xylophone", want: []string{}},
		{query: "?status=paid&search=%C3%B8", want: []string{}}, // one non-ASCII character
	}
	for _, tt := range tests {
		got, r := invE2EList(t, srv, tok, tt.query)
		if ids := invE2EIDs(got); !slices.Equal(ids, tt.want) {
			t.Errorf("%s: %v, want %v", tt.query, ids, tt.want)
		}
		if link := r.Header.Get("Link"); link != tt.link {
			t.Errorf("%s: Link %q, want %q", tt.query, link, tt.link)
		}
	}

	// Organization B sees its own invoice only, also when searching.
	tokB := e2e.MintToken(t, invE2EOrgB, "invoices")
	for _, q := range []string{"", "?search=storage", "?search=inv_e2e_a"} {
		got, _ := invE2EList(t, srv, tokB, q)
		want := []string{"inv_e2e_b1"}
		if q == "?search=inv_e2e_a" {
			want = []string{}
		}
		if ids := invE2EIDs(got); !slices.Equal(ids, want) {
			t.Errorf("org B %s: %v, want %v", q, ids, want)
		}
	}
}

func TestInvoicesListRefusesBadParameters(t *testing.T) {
	srv := invE2EServer(t)
	tok := e2e.MintToken(t, invE2EOrgA, "invoices")
	tests := []struct{ query, parameter string }{
		{"status=draft", "status"},
		{"status=accumulating", "status"},
		{"status=Paid", "status"},
		{"status=", "status"},
		{"sortBy=name", "sortBy"},
		{"sortBy=", "sortBy"},
		{"sortOrder=up", "sortOrder"},
		{"sortOrder=DESC", "sortOrder"},
		{"search=" + strings.Repeat("%C3%A9", 201), "search"},
		{"search=a%00b", "search"},
		{"search=%FF", "search"},
		{"skip=-1", "skip"},
		{"skip=x", "skip"},
		{"take=0", "take"},
		{"take=11", "take"},
		{"take=abc", "take"},
	}
	for _, tt := range tests {
		r := e2e.Do(t, "GET", srv.URL+"/v0/invoices?"+tt.query, nil, invE2EAuth(tok)...)
		p := e2e.WantProblem(t, r, 400, "invalid_parameter")
		if p.Parameter != tt.parameter {
			t.Errorf("%s: parameter %q, want %q", tt.query, p.Parameter, tt.parameter)
		}
	}
	// 200 characters are fine.
	if r := e2e.Do(t, "GET", srv.URL+"/v0/invoices?search="+strings.Repeat("%C3%A9", 200), nil, invE2EAuth(tok)...); r.Status != 200 {
		t.Fatalf("200 characters: %d %s", r.Status, r.Body)
	}

	// Authentication comes before validation.
	r := e2e.Do(t, "GET", srv.URL+"/v0/invoices?status=bogus&take=99", nil)
	e2e.WantProblem(t, r, 401, "invalid_token")
	if got := r.Header.Get("WWW-Authenticate"); got != `Bearer realm="fulfillment", error="invalid_token"` {
		t.Fatalf("WWW-Authenticate %q", got)
	}
	e2e.WantProblem(t, e2e.Do(t, "GET", srv.URL+"/v0/invoices/inv_e2e_a00", nil, invE2EAuth("not-a-token")...), 401, "invalid_token")
	for _, path := range []string{"/v0/invoices?status=bogus", "/v0/invoices/inv_e2e_a00"} {
		r = e2e.Do(t, "GET", srv.URL+path, nil, invE2EAuth(e2e.MintToken(t, invE2EOrgA, "locations", "shipments"))...)
		e2e.WantProblem(t, r, 403, "insufficient_scope")
		if got := r.Header.Get("WWW-Authenticate"); got != `Bearer realm="fulfillment", error="insufficient_scope", scope="invoices"` {
			t.Fatalf("%s: WWW-Authenticate %q", path, got)
		}
	}
	r = e2e.Do(t, "POST", srv.URL+"/v0/invoices", "{}", invE2EAuth(tok)...)
	e2e.WantProblem(t, r, 405, "method_not_allowed")
	if r.Header.Get("Allow") != "GET" {
		t.Fatalf("Allow %q", r.Header.Get("Allow"))
	}
}

func TestInvoiceDetailAPI(t *testing.T) {
	srv := invE2EServer(t)
	tok := e2e.MintToken(t, invE2EOrgA, "invoices")
	r := e2e.Do(t, "GET", srv.URL+"/v0/invoices/inv_e2e_storage", nil, invE2EAuth(tok)...)
	if r.Status != 200 || r.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("detail: %d %s: %s", r.Status, r.Header.Get("Content-Type"), r.Body)
	}
	var inv map[string]any
	dec := json.NewDecoder(bytes.NewReader(r.Body))
	dec.UseNumber()
	if err := dec.Decode(&inv); err != nil {
		t.Fatal(err)
	}
	invE2EWantShape(t, inv)
	if inv["id"] != "inv_e2e_storage" || inv["totalAmount"] != json.Number("1551") || len(inv["items"].([]any)) != 2 {
		t.Fatalf("detail %v", inv)
	}
	// List and detail agree.
	list, _ := invE2EList(t, srv, tok, "?take=1")
	if fromList, _ := json.Marshal(list[0]); !bytes.Equal(fromList, e2e.MustJSON(t, inv)) {
		t.Fatalf("list %s and detail %s differ", fromList, e2e.MustJSON(t, inv))
	}

	tokB := e2e.MintToken(t, invE2EOrgB, "invoices")
	notFound := []struct{ tok, path string }{
		{tok, "/v0/invoices/inv_e2e_draft"},
		{tok, "/v0/invoices/inv_e2e_accumulating"},
		{tok, "/v0/invoices/inv_e2e_deleted"},
		{tok, "/v0/invoices/inv_e2e_b1"},       // another organization's
		{tokB, "/v0/invoices/inv_e2e_storage"}, // and the other way round
		{tok, "/v0/invoices/inv_e2e_nope"},
		{tok, "/v0/invoices/INV_E2E_STORAGE"},
		{tok, "/v0/invoices/'%20OR%201=1"},
		{tok, "/v0/invoices/inv_e2e_storage'%20OR%20'1'='1"},
		{tok, "/v0/invoices/%25"},
		{tok, "/v0/invoices/%00"},
		{tok, "/v0/invoices/%FF%FE"},
		{tok, "/v0/invoices/" + strings.Repeat("a", 300)},
		{tok, "/v0/invoices/inv_e2e_storage%2Fitems"},
		{tok, "/v0/invoices/inv_e2e_storage/items"},
		{tok, "/v0/invoices/" + url.PathEscape("ünïcode")},
	}
	for _, tt := range notFound {
		r := e2e.Do(t, "GET", srv.URL+tt.path, nil, invE2EAuth(tt.tok)...)
		if r.Status != 404 {
			t.Errorf("%s: %d %s, want 404", tt.path, r.Status, r.Body)
			continue
		}
		e2e.WantProblem(t, r, 404, "not_found")
	}
}
