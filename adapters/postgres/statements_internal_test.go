package postgres

import (
	"strings"
	"testing"

	"github.com/acme3pl/fulfillment/domain/invoicing"
	invoicingports "github.com/acme3pl/fulfillment/ports/invoicing"
)

// TestOperation: a statement's span is named by its declared command
// (statement), the command its text runs: checked here against operation,
// the parser that named the spans before the statements declared it (the
// context packages': TestContextOperations).
func TestOperation(t *testing.T) {
	for _, tt := range []struct{ sql, want string }{
		{"SELECT 1", "SELECT"},
		{"\n\tupdate order_receipts SET status = $1", "UPDATE"},
		{"WITH x AS (SELECT 1) DELETE FROM t", "DELETE"},
	} {
		if got := operation(tt.sql); got != tt.want {
			t.Errorf("operation(%.40q) = %s, want %s", tt.sql, got, tt.want)
		}
	}
	for _, tt := range []struct {
		s    statement
		want string
	}{
		{invoiceLists[invoicingports.InvoicesByCreatedAt][0].shortTerm, "SELECT"},
	} {
		if got := tt.s.command(); got != tt.want || operation(tt.s.sql()) != tt.want {
			t.Errorf("%.40q: declared %s, runs %s, want %s", tt.s.sql(), got, operation(tt.s.sql()), tt.want)
		}
	}
}

// visibleInvoice is invoicing.VisibleInvoiceStatuses in SQL.
func TestVisibleInvoiceIsTheDomainsRule(t *testing.T) {
	quoted := make([]string, len(invoicing.VisibleInvoiceStatuses))
	for i, st := range invoicing.VisibleInvoiceStatuses {
		quoted[i] = "'" + string(st) + "'"
	}
	if want := "i.status IN (" + strings.Join(quoted, ", ") + ") AND i.deleted_at IS NULL"; visibleInvoice != want {
		t.Errorf("visibleInvoice\n%s\nwant\n%s", visibleInvoice, want)
	}
}
