package invoicing

import (
	"strings"
	"testing"

	"github.com/acme3pl/fulfillment/domain/invoicing"
)

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
