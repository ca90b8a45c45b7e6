package invoicing

import (
	"net/http/httptest"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/adapters/apiview"
	"github.com/acme3pl/fulfillment/adapters/httpapi"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/invoicing"
)

// The invoice bodies, byte for byte: members in the document's order,
// timestamps in UTC with milliseconds, quantities as written, deletedAt
// null, HTML-safe escaping and a final newline (encoding/json's Encoder).
func TestInvoiceBodies(t *testing.T) {
	at := time.Date(2026, 11, 22, 2, 15, 5, 123_456_789, time.FixedZone("CET", 3600))
	quantity := func(s string) domain.Quantity {
		q, err := domain.ParseQuantity(s)
		if err != nil {
			t.Fatal(err)
		}
		return q
	}
	total := int64(702)
	inv := invoicing.RehydrateInvoice(invoicing.InvoiceParams{
		ID: "inv_1", OrganizationID: "org", Key: "INV-2026-000123", Status: invoicing.InvoicePaid, Name: `Fees <week 44> & "more"`,
		Notes: "tab\there\u2028 Zoë \xff", DueDate: at.AddDate(0, 0, 30), Currency: "USD", CreatedAt: at, UpdatedAt: at.Add(time.Minute),
		Items: []invoicing.InvoiceItemParams{
			{ID: "li_1", Title: "Pick & pack", Description: "", Quantity: quantity("1.5"), UnitCost: 468, TotalCost: &total},
			{ID: "li_2", Title: "Storage", Description: "pallets", Quantity: quantity("0.005"), UnitCost: 0, TotalCost: new(int64)},
		},
	}, 702)
	const want = `{"id":"inv_1","status":"paid","name":"Fees \u003cweek 44\u003e \u0026 \"more\"","notes":"tab\there\u2028 Zoë \ufffd",` +
		`"dueDate":"2026-12-22T01:15:05.123Z","items":[` +
		`{"id":"li_1","title":"Pick \u0026 pack","description":"","quantity":1.5,"unitCost":468,"totalCost":702},` +
		`{"id":"li_2","title":"Storage","description":"pallets","quantity":0.005,"unitCost":0,"totalCost":0}],` +
		`"totalAmount":702,"currency":"USD","createdAt":"2026-11-22T01:15:05.123Z","updatedAt":"2026-11-22T01:16:05.123Z","deletedAt":null}`
	w := httptest.NewRecorder()
	httpapi.WriteJSON(w, 200, apiview.InvoiceOf(inv))
	if got := w.Body.String(); got != want+"\n" || w.Header().Get("Content-Type") != "application/json" {
		t.Errorf("detail\n got %s\nwant %s", got, want)
	}
	empty := invoicing.RehydrateInvoice(invoicing.InvoiceParams{ID: "inv_2", Status: invoicing.InvoiceUnpaid, Currency: "USD"}, 0)
	w = httptest.NewRecorder()
	httpapi.WriteJSON(w, 200, []apiview.Invoice{apiview.InvoiceOf(empty)})
	const wantEmpty = `[{"id":"inv_2","status":"unpaid","name":"","notes":"","dueDate":"0001-01-01T00:00:00.000Z","items":[],` +
		`"totalAmount":0,"currency":"USD","createdAt":"0001-01-01T00:00:00.000Z","updatedAt":"0001-01-01T00:00:00.000Z","deletedAt":null}]`
	if got := w.Body.String(); got != wantEmpty+"\n" {
		t.Errorf("list\n got %s\nwant %s", got, wantEmpty)
	}
}
