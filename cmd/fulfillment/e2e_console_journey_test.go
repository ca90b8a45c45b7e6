package main

// The operator's console as a person uses it (docs/console.md, "How it is
// tested"): in headless Chromium, signed in through the real OpenID
// provider's login form, a billing clerk replays a failed order and sees its
// shipment, adds a credit and sees the open invoice change, closes the
// period and sees its key; a viewer is refused an action. axe-core runs on
// every page and a screenshot of each is kept.

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/cmd/fulfillment/internal/e2e"
	"github.com/chromedp/chromedp"
)

// journeyOrder is an order with a SKU the organization lacks at first.
func journeyOrder(id int64) []byte {
	return fmt.Appendf(nil, `{"id": %d, "order_number": 1001, "customer": {"email": "zoe@example.de"},
  "shipping_address": {"name": "Zoë Müller", "address1": "Straße des 17. Juni 135", "city": "Berlin", "zip": "10623",
    "country_code": "DE", "phone": "+49 30 1234567"},
  "line_items": [{"id": 1, "sku": "CJ-SOCK", "quantity": 2, "requires_shipping": true},
    {"id": 2, "sku": "CJ-NEW", "quantity": 1, "requires_shipping": true}]}`, id)
}

func TestConsoleJourneyInBrowser(t *testing.T) {
	// An organization of this run's own: a warehouse, a product, an API key, a rate card from this
	// month (an open invoice), and a failed order (a SKU it lacked) made good by adding the product.
	suffix := fmt.Sprintf("%08x", rand.Uint32())
	org := "org_e2e_cj_" + suffix
	key := "fk_test_E2Ejourney" + strings.Repeat(suffix, 4)[:28]
	card := e2e.BillE2ECard(time.Now().UTC().Format("2006-01") + "-01")
	card["organizationId"] = org
	e2e.SeedFixture(t, e2e.TestDSN, map[string]any{
		"organizations": []any{e2e.FixtureOrg(org, "Journey "+suffix)},
		"warehouses":    []any{e2e.FixtureWarehouse("wh_e2e_cj_"+suffix, "Journey DC", true, org)},
		"products":      []any{map[string]any{"id": "prod_e2e_cj_" + suffix, "organizationId": org, "sku": "CJ-SOCK", "name": "Socks"}},
		"apiKeys": []any{map[string]any{"id": "key_e2e_cj_" + suffix, "organizationId": org, "key": key,
			"scopes": []string{"shipments", "inventory"}, "revoked": false}},
		"rateCards": []any{card},
	})

	dir := tool(t, "oidc-provider")
	idpAddr, consoleAddr := e2e.FreeAddr(t), e2e.FreeAddr(t)
	origin := "http://" + consoleAddr
	startConsoleProvider(t, dir, idpAddr, origin)
	srv, _ := startConsoleAt(t, consoleAddr, "CONSOLE_OIDC_ISSUER=http://"+idpAddr, "CONSOLE_OIDC_CLIENT_ID=console",
		"CONSOLE_OIDC_CLIENT_SECRET=console-secret-0123456789")

	orderID := int64(7000000000 + rand.IntN(1000000000))
	wantIntakeError(t, e2e.Deliver(t, srv, key, journeyOrder(orderID)), 422, "unknown_skus")
	e2e.SeedFixture(t, e2e.TestDSN, map[string]any{"products": []any{map[string]any{"id": "prod_e2e_cj_new_" + suffix,
		"organizationId": org, "sku": "CJ-NEW", "name": "New socks"}}})

	b := newBrowser(t)

	// A page without a session goes to the provider's login form; the clerk signs in there and
	// comes back to the console.
	failed := origin + "/failed-orders?org=" + org
	b.open(failed)
	if !strings.HasPrefix(b.location(), "http://"+idpAddr+"/") {
		t.Fatalf("without a session %s went to %s, want the provider's sign-in", failed, b.location())
	}
	b.screenshot("provider-login")
	b.signIn("http://"+idpAddr, "bill")
	b.problems(`.`) // the provider's pages are not the console's (its login form asks for a web font)
	// The console may come back to the page asked for, or to its first page.
	if loc := b.location(); loc != failed && loc != origin+"/" {
		t.Fatalf("after the sign-in the browser is at %s, want %s or %s/", loc, failed, origin)
	} else if loc != failed {
		b.open(failed)
	}
	if text := b.text(); !strings.Contains(text, "bill") || !strings.Contains(text, "billing") {
		t.Errorf("the header does not show who is signed in: %.300s", text)
	}

	// Failed orders: the order is there, its body masked; replayed, it has a shipment.
	text := b.text()
	if !strings.Contains(text, fmt.Sprint(orderID)) || !strings.Contains(text, "unknown_skus") {
		t.Fatalf("the failed orders page lacks order %d: %.500s", orderID, text)
	}
	b.checkPage("failed-orders")
	b.open(fmt.Sprintf("%s/failed-orders?org=%s&order=%d", origin, org, orderID))
	if text := b.text(); strings.Contains(text, "Zoë Müller") || strings.Contains(text, "zoe@example.de") || strings.Contains(text, "1234567") {
		t.Errorf("the failed order's page shows personal data unmasked: %.800s", text)
	}
	b.checkPage("failed-order")
	b.open(origin + "/failed-orders?org=" + org)
	if status := b.submit("replay the order", chromedp.Click(chromedp.ID(fmt.Sprintf("replay-%d", orderID)))); status != http.StatusOK {
		t.Fatalf("replay: %d %.500s", status, b.text())
	}
	shipment := eval[string](b, `document.getElementById("replay-shipment-id")?.innerText ?? ""`)
	if !strings.HasPrefix(strings.TrimSpace(shipment), "shp_") {
		t.Fatalf("the replay's page shows no shipment: %.500s", b.text())
	}
	b.checkPage("replay-done")
	if status := b.submit("open the shipment", chromedp.Click(chromedp.CSS("#replay-shipment-id a"))); status != http.StatusOK ||
		!strings.Contains(b.text(), strings.TrimSpace(shipment)) {
		t.Fatalf("the shipment's page: %d %.500s", status, b.text())
	}
	b.checkPage("shipment")
	b.open(origin + "/shipments?org=" + org)
	b.checkPage("shipments")

	// Billing: a $20.00 credit lowers the open invoice's total (the month's minimum, $50.00) by as
	// much.
	b.open(origin + "/billing?org=" + org)
	before := money(t, eval[string](b, `document.getElementById("open-invoice-total").innerText`))
	b.checkPage("billing")
	b.do("fill the charge form",
		chromedp.SendKeys(chromedp.ID("charge-reference"), "goodwill-"+suffix),
		chromedp.SendKeys(chromedp.ID("charge-title"), "Goodwill credit"),
		chromedp.SetValue(chromedp.ID("charge-quantity"), "1"),
		chromedp.SendKeys(chromedp.ID("charge-unit-cost"), "-2000"))
	if status := b.submit("add the credit", chromedp.Click(chromedp.ID("charge-submit"))); status != http.StatusOK {
		t.Fatalf("add the credit: %d %.500s", status, b.text())
	}
	b.checkPage("credit-added")
	b.open(origin + "/billing?org=" + org)
	if after := money(t, eval[string](b, `document.getElementById("open-invoice-total").innerText`)); after != before-2000 {
		t.Fatalf("the open invoice's total went from %d to %d cents, want %d", before, after, before-2000)
	}

	// Close: a confirmation first (nothing changed), then the key.
	if status := b.submit("review the close", chromedp.Click(chromedp.ID("close-start"))); status != http.StatusOK ||
		!strings.Contains(b.text(), "Nothing has changed yet") {
		t.Fatalf("the close's confirmation: %d %.500s", status, b.text())
	}
	b.checkPage("close-confirm")
	if status := b.submit("close the period", chromedp.Click(chromedp.ID("close-confirm"))); status != http.StatusOK {
		t.Fatalf("close: %d %.500s", status, b.text())
	}
	invoiceKey := strings.TrimSpace(eval[string](b, `document.getElementById("finalized-key")?.innerText ?? ""`))
	if invoiceKey == "" {
		t.Fatalf("the close's page shows no invoice key: %.500s", b.text())
	}
	b.checkPage("closed")
	b.open(origin + "/billing?org=" + org)
	if !strings.Contains(b.text(), invoiceKey) {
		t.Errorf("the billing page does not list the invoice %s", invoiceKey)
	}

	// The other pages.
	for _, p := range []struct{ name, path string }{
		{"today", "/"}, {"inventory", "/inventory?org=" + org}, {"organizations", "/organizations"},
		{"organization", "/organizations?org=" + org}, {"audit", "/audit?org=" + org},
	} {
		if status, _ := b.open(origin + p.path); status != http.StatusOK {
			t.Errorf("%s: %d", p.path, status)
			b.problems(`status of`)
			continue
		}
		b.checkPage(p.name)
	}
	if text := b.text(); !strings.Contains(text, "charges.add") || !strings.Contains(text, "billing.close") || !strings.Contains(text, "bill") {
		t.Errorf("the audit page does not show the clerk's credit and close: %.800s", text)
	}

	// A viewer: signed in afresh, refused the credit, with nothing done.
	b.signOut(failed)
	b.clearCookies()
	b.open(origin + "/billing?org=" + org)
	b.signIn("http://"+idpAddr, "vera")
	b.problems(`.`) // the provider's pages, and where it lands
	b.open(origin + "/billing?org=" + org)
	b.do("fill the charge form as a viewer",
		chromedp.SendKeys(chromedp.ID("charge-reference"), "viewer-"+suffix),
		chromedp.SendKeys(chromedp.ID("charge-title"), "Not allowed"),
		chromedp.SendKeys(chromedp.ID("charge-unit-cost"), "-100"))
	if status := b.submit("add a credit as a viewer", chromedp.Click(chromedp.ID("charge-submit"))); status != http.StatusForbidden {
		t.Fatalf("a viewer's credit: %d, want 403: %.500s", status, b.text())
	}
	b.checkPage("refused", `status of 403`)
	if n := e2e.QueryValue[int](t, `SELECT count(*) FROM audit_records WHERE organization_id = ? AND action = 'charges.add' AND outcome = 'forbidden'`, org); n != 1 {
		t.Errorf("%d forbidden records of the viewer's credit, want 1", n)
	}
	if n := e2e.QueryValue[int](t, `SELECT count(*) FROM billing_charges WHERE organization_id = ? AND source_id = ?`, org, "viewer-"+suffix); n != 0 {
		t.Errorf("the viewer's credit was recorded")
	}
}

// money reads "$1,234.56" or "-$500.00" as cents.
func money(t *testing.T, s string) int64 {
	t.Helper()
	s = strings.TrimSpace(s)
	neg := strings.HasPrefix(s, "-") || strings.HasPrefix(s, "−")
	digits := regexp.MustCompile(`[^0-9]`).ReplaceAllString(s, "")
	var n int64
	if _, err := fmt.Sscan(digits, &n); err != nil || !strings.Contains(s, ".") {
		t.Fatalf("not an amount: %q", s)
	}
	if neg {
		n = -n
	}
	return n
}
