package pagetests

import (
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/acme3pl/fulfillment/domain/audit"
)

func outcomesOf(w *world, t *testing.T, org string, action audit.Action) string {
	t.Helper()
	var out []string
	for _, r := range w.auditRecords(t, org) {
		if r.Action == action {
			out = append(out, string(r.Outcome))
		}
	}
	return strings.Join(out, ",")
}

// A credit added from the billing page shows its amount and the open
// invoice's new total; the same form again changes nothing; the same
// reference with other content is refused.
func TestBillingCharges(t *testing.T) {
	w := newWorld(t)
	const org = "org_pg_bill"
	a := w.get(t, "viewer", "/billing?org="+org)
	want(t, a, 200, "<h1>Billing of", `id="charge-form"`, `id="open-invoice-total"`, `id="close-start"`, `id="rates-form"`)

	credit := url.Values{"org": {org}, "reference": {"CR-PAGES-1"}, "title": {"Goodwill credit"}, "quantity": {"1"},
		"unitCost": {"-50000"}, "description": {"a late delivery"}}
	a = w.post(t, "billing", "/billing/charges", credit)
	want(t, a, 200, "Done.", `<dd id="charge-amount">-$500.00 USD</dd>`, `id="invoice-total"`)
	a = w.post(t, "billing", "/billing/charges", credit)
	want(t, a, 200, "Unchanged.")
	a = w.get(t, "viewer", "/billing?org="+org)
	want(t, a, 200, "Goodwill credit", "-$500.00 USD", "operator <code>CR-PAGES-1</code>")

	other := url.Values{"org": {org}, "reference": {"CR-PAGES-1"}, "title": {"Other"}, "quantity": {"2"}, "unitCost": {"-100"}}
	want(t, w.post(t, "billing", "/billing/charges", other), 409, "reference_conflict")
	bad := url.Values{"org": {org}, "reference": {"CR-PAGES-2"}, "title": {"Bad"}, "quantity": {"1.2345"}, "unitCost": {"100"}}
	want(t, w.post(t, "billing", "/billing/charges", bad), 400, "quantity")
	bad.Set("quantity", "1")
	bad.Set("unitCost", "1.5")
	want(t, w.post(t, "billing", "/billing/charges", bad), 400, "unitCost")
	bad.Set("unitCost", "100")
	bad.Set("date", "2026-13-01")
	want(t, w.post(t, "billing", "/billing/charges", bad), 400, "date")
	bad.Set("date", "")
	bad.Set("org", "org_nope")
	want(t, w.post(t, "billing", "/billing/charges", bad), 404)
	// Ops may not add charges: 403, nothing recorded.
	bad.Set("org", org)
	want(t, w.post(t, "ops", "/billing/charges", bad), 403)
	if got := outcomesOf(w, t, org, audit.ChargesAdd); got != "done,unchanged,reference_conflict,not_found" &&
		got != "done,unchanged,reference_conflict" {
		t.Errorf("charges.add outcomes %q", got)
	}
	want(t, w.get(t, "viewer", "/billing?org="+org), 200)
	if strings.Contains(w.get(t, "viewer", "/billing?org="+org).body, "CR-PAGES-2") {
		t.Error("a refused charge was recorded")
	}
}

// Close: org alone shows the totals and changes nothing; confirm=yes
// closes and shows the key; the finalized invoice's page, CSV and status.
func TestBillingCloseStatusAndCSV(t *testing.T) {
	w := newWorld(t)
	const org = "org_pg_close"
	want(t, w.post(t, "billing", "/billing/charges", url.Values{"org": {org}, "reference": {"FEE-1"}, "title": {"Setup fee"},
		"quantity": {"2"}, "unitCost": {"12345"}}), 200, "Done.")
	a := w.post(t, "billing", "/billing/close", url.Values{"org": {org}})
	want(t, a, 200, `id="close-confirm"`, "$246.90 USD", "Nothing has changed yet")
	if got := outcomesOf(w, t, org, audit.BillingClose); got != "" {
		t.Fatalf("the preview of a close recorded %q", got)
	}
	want(t, w.post(t, "viewer", "/billing/close", url.Values{"org": {org}, "confirm": {"yes"}}), 403)
	want(t, w.post(t, "billing", "/billing/close", url.Values{"org": {org}, "confirm": {"maybe"}}), 400)
	if got := outcomesOf(w, t, org, audit.BillingClose); got != "" {
		t.Fatalf("refused closes recorded %q", got)
	}
	a = w.post(t, "billing", "/billing/close", url.Values{"org": {org}, "confirm": {"yes"}})
	want(t, a, 200, `id="finalized-key"`, `<dd id="finalized-total">$246.90 USD</dd>`)
	inv := regexp.MustCompile(`id="finalized-invoice"><a href="[^"]*">([^<]+)</a>`).FindStringSubmatch(a.body)
	key := regexp.MustCompile(`id="finalized-key">([^<]+)</dd>`).FindStringSubmatch(a.body)
	if inv == nil || key == nil {
		t.Fatalf("no invoice or key:\n%s", a.body)
	}
	a = w.get(t, "viewer", "/billing?org="+org)
	want(t, a, 200, key[1], `id="csv-`+inv[1]+`"`, `id="status-`+inv[1]+`"`)
	a = w.get(t, "viewer", "/billing?org="+org+"&invoice="+inv[1])
	want(t, a, 200, `<dd id="invoice-total">$246.90 USD</dd>`, "Setup fee", "FEE-1")

	a = w.get(t, "viewer", "/billing/invoices/"+inv[1]+"/charges.csv?org="+org)
	want(t, a, 200, "id,fee,title,quantity,unitCost,occurredAt,warehouseId,source.type,source.id\r\n", ",operator,Setup fee,2,12345,")
	if ct := a.header.Get("Content-Type"); ct != "text/csv; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	want(t, w.get(t, "viewer", "/billing/invoices/inv_nope/charges.csv?org="+org), 404)
	want(t, w.get(t, "viewer", "/billing/invoices/"+inv[1]+"/charges.csv"), 400)

	want(t, w.post(t, "billing", "/billing/status", url.Values{"invoiceId": {inv[1]}, "to": {"gone"}}), 400, "to")
	want(t, w.post(t, "billing", "/billing/status", url.Values{"invoiceId": {"inv_nope"}, "to": {"paid"}}), 404)
	want(t, w.post(t, "ops", "/billing/status", url.Values{"invoiceId": {inv[1]}, "to": {"paid"}}), 403)
	a = w.post(t, "billing", "/billing/status", url.Values{"invoiceId": {inv[1]}, "to": {"paid"}})
	want(t, a, 200, "Done.", "→ paid")
	a = w.get(t, "viewer", "/billing?org="+org+"&invoice="+inv[1])
	want(t, a, 200, `<dd id="invoice-status">paid</dd>`)
}

// Rates: the first POST shows the card in force beside the new one and
// changes nothing; confirm=yes sets it; a card that is not one is 400.
func TestBillingRates(t *testing.T) {
	w := newWorld(t)
	const org = "org_pg_bill"
	month := w.clock.Now().UTC().Format("2006-01")
	card := `{"organizationId": "org_pg_bill", "effectiveFrom": "` + month + `-01", "fees": {"pick_pack_order": 300, "minimum_monthly": 0},
  "services": {"kitting": {"title": "Kitting", "unitCost": 80}}}`
	a := w.post(t, "billing", "/billing/rates", url.Values{"org": {org}, "card": {card}})
	want(t, a, 200, `id="rates-confirm"`, "$2.50 USD", "<strong>$3.00 USD</strong> (changed)", "Kitting: $0.80 USD")
	if got := outcomesOf(w, t, org, audit.RatesSet); got != "" {
		t.Fatalf("the comparison recorded %q", got)
	}
	want(t, w.post(t, "billing", "/billing/rates", url.Values{"org": {org}, "card": {"{"}}), 400, "card")
	want(t, w.post(t, "billing", "/billing/rates", url.Values{"org": {org}, "card": {strings.Replace(card, "org_pg_bill", "org_pg_ops", 1)}}), 400)
	want(t, w.post(t, "ops", "/billing/rates", url.Values{"org": {org}, "card": {card}, "confirm": {"yes"}}), 403)
	a = w.post(t, "billing", "/billing/rates", url.Values{"org": {org}, "card": {card}, "confirm": {"yes"}})
	want(t, a, 200, "Done.", `<dd id="rates-from">`+month+`-01</dd>`)
	a = w.post(t, "billing", "/billing/rates", url.Values{"org": {org}, "card": {card}, "confirm": {"yes"}})
	want(t, a, 200, "Unchanged.")
	if got := outcomesOf(w, t, org, audit.RatesSet); !strings.HasPrefix(got, "done,") {
		t.Errorf("rates.set outcomes %q, want done, then the repeat's", got)
	}
}
