package pagetests

import (
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/acme3pl/fulfillment/adapters/console"
)

// Every page's template is rendered here through a request that shows it,
// so that a template that fails to render fails the tests; a new page
// without an entry fails too. The sign-in pages are the guard's own tests'.
func TestEveryPageRenders(t *testing.T) {
	w := newWorld(t)
	if err := w.deliver(t, "org_pg_ops", orderBody(7501, "PG-NEVER-2")); err == nil {
		t.Fatal("taken")
	}
	shipment := w.take(t, "org_pg_ops", orderBody(7502, "PG-SOCK"))
	want(t, w.post(t, "billing", "/billing/charges", url.Values{"org": {"org_pg_close"}, "reference": {"EVERY-1"}, "title": {"Fee"},
		"quantity": {"1"}, "unitCost": {"100"}}), 200)
	closed := w.post(t, "billing", "/billing/close", url.Values{"org": {"org_pg_close"}, "confirm": {"yes"}})
	invoice := regexp.MustCompile(`id="finalized-invoice"><a href="[^"]*">([^<]+)</a>`).FindStringSubmatch(closed.body)
	if invoice == nil {
		t.Fatalf("no invoice finalized:\n%s", closed.body)
	}
	type request struct {
		role, method, target string
		form                 url.Values
		heading              string
	}
	requests := map[string]request{
		"home":          {"viewer", "GET", "/", nil, "<h1>Today</h1>"},
		"pick_org":      {"viewer", "GET", "/billing", nil, "Choose an organization"},
		"problem":       {"viewer", "GET", "/billing?org=org_nope", nil, `id="error-code"`},
		"outcome":       {"billing", "POST", "/billing/charges", url.Values{"org": {"org_pg_bill"}}, `id="error"`},
		"failed_orders": {"viewer", "GET", "/failed-orders?org=org_pg_ops", nil, "<h1>Failed orders of"},
		"failed_order":  {"viewer", "GET", "/failed-orders?org=org_pg_ops&order=7501", nil, "<h1>Storefront order 7501"},
		"replay_all":    {"ops", "POST", "/failed-orders/replay-all", url.Values{"org": {"org_pg_ops"}, "code": {"missing_sku"}}, `id="replay-summary"`},
		"shipments":     {"viewer", "GET", "/shipments?org=org_pg_ops", nil, "<h1>Shipments of"},
		"shipment":      {"viewer", "GET", "/shipments?org=org_pg_ops&id=" + shipment, nil, "<h1>Shipment <code>"},
		"inventory":     {"viewer", "GET", "/inventory?org=org_pg_ops", nil, "<h1>Inventory of"},
		"ledger":        {"viewer", "GET", "/inventory?org=org_pg_ops&item=prod_pg_sock", nil, "<h1>Stock movements of"},
		"billing":       {"viewer", "GET", "/billing?org=org_pg_bill", nil, "<h1>Billing of"},
		"billing_invoice": {"viewer", "GET", "/billing?org=org_pg_close&invoice=" + invoice[1], nil,
			`id="invoice-total"`},
		"close_confirm": {"billing", "POST", "/billing/close", url.Values{"org": {"org_pg_bill"}}, `id="close-confirm"`},
		"rates_confirm": {"billing", "POST", "/billing/rates", url.Values{"org": {"org_pg_bill"},
			"card": {`{"organizationId": "org_pg_bill", "effectiveFrom": "2099-01-01", "fees": {"pick_pack_order": 1}}`}}, `id="rates-confirm"`},
		"organizations": {"viewer", "GET", "/organizations", nil, "<h1>Organizations</h1>"},
		"organization":  {"viewer", "GET", "/organizations?org=org_pg_ops", nil, `id="limit-form"`},
		"audit":         {"viewer", "GET", "/audit", nil, "<h1>Audit log</h1>"},
	}
	views, err := console.NewViews()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range views.Pages() {
		if name == "signed_out" || strings.HasPrefix(name, "signin") {
			continue
		}
		req, ok := requests[name]
		if !ok {
			t.Errorf("the page %s has no request in this test", name)
			continue
		}
		t.Run(name, func(t *testing.T) {
			var a answer
			if req.method == "POST" {
				a = w.post(t, req.role, req.target, req.form)
			} else {
				a = w.get(t, req.role, req.target)
			}
			if a.status >= 500 {
				t.Fatalf("status %d:\n%s", a.status, a.body)
			}
			for _, s := range []string{`<html lang="en">`, "<title>", "<h1", req.heading, "</html>"} {
				if !strings.Contains(a.body, s) {
					t.Errorf("the page lacks %q:\n%s", s, a.body)
				}
			}
		})
	}
}
