package invoicing

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	invoicingports "github.com/acme3pl/fulfillment/ports/invoicing"
)

// pageItems gives each invoice its items in the order read: in runs when
// the rows come grouped by invoice, as invoiceItemsSQL returns them, and
// still right when they do not; an item of an invoice not on the page is
// dropped.
func TestPageItemsAssign(t *testing.T) {
	page := []invoiceWithItems{{row: invoiceRow{ID: "a"}}, {row: invoiceRow{ID: "b"}}, {row: invoiceRow{ID: "c"}}}
	p := pageItems{page: page}
	for _, it := range []struct{ invoice, id string }{
		{"a", "a1"}, {"a", "a2"}, {"b", "b1"}, {"x", "x1"}, {"a", "a3"}, {"b", "b2"}, {"b", "b3"},
	} {
		p.all = append(p.all, invoiceItemRow{InvoiceID: it.invoice, ID: it.id})
	}
	p.assign()
	want := map[string][]string{"a": {"a1", "a2", "a3"}, "b": {"b1", "b2", "b3"}, "c": nil}
	for _, inv := range page {
		var got []string
		for _, it := range inv.items {
			got = append(got, it.ID)
		}
		if !slices.Equal(got, want[inv.row.ID]) {
			t.Errorf("invoice %s: items %v, want %v", inv.row.ID, got, want[inv.row.ID])
		}
	}
}

// Every prepared page reads pageLimit rows, the limit written in its text,
// in each of the list's orders.
func TestListStatementsReadPageLimitRows(t *testing.T) {
	limit := fmt.Sprintf("OFFSET $2 LIMIT %d)", pageLimit)
	for _, key := range []invoicingports.InvoiceSortKey{invoicingports.InvoicesByCreatedAt, invoicingports.InvoicesByUpdatedAt, invoicingports.InvoicesByDueDate} {
		for _, stmts := range invoiceLists[key] {
			for _, text := range []string{sqlOf(stmts.list), sqlOf(stmts.listOfStatus)} {
				if strings.Count(text, limit) != 1 {
					t.Errorf("%v: want one %q in\n%s", key, limit, text)
				}
			}
		}
	}
}
