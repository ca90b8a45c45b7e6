package postgres

import (
	"strings"
	"testing"

	"github.com/acme3pl/fulfillment/domain/invoicing"
)

func TestOperation(t *testing.T) {
	for _, tt := range []struct{ sql, want string }{
		{"SELECT 1", "SELECT"},
		{"\n\tupdate order_receipts SET status = $1", "UPDATE"},
		{claimOrderSQL, "SELECT"},
		{createPickPackSQL, "INSERT"},
		{acceptOrderSQL, "UPDATE"},
		{recordFailureSQL, "INSERT"},
		{shortTermByCreatedAtDescSQL, "SELECT"},
		{"WITH x AS (SELECT 1) DELETE FROM t", "DELETE"},
	} {
		if got := operation(tt.sql); got != tt.want {
			t.Errorf("operation(%.40q) = %s, want %s", tt.sql, got, tt.want)
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
