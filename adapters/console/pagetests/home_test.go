package pagetests

import (
	"context"
	"testing"
	"time"

	billingapp "github.com/acme3pl/fulfillment/application/billing"
)

// The first page counts the failed orders by code with the oldest's age,
// the pending shipments per warehouse, the invoices finalizing within a
// day and the outbox's backlog.
func TestHome(t *testing.T) {
	w := newWorld(t)
	if err := w.deliver(t, "org_pg_ops", orderBody(7401, "PG-NEVER")); err == nil {
		t.Fatal("taken")
	}
	w.take(t, "org_pg_ops", orderBody(7402, "PG-SOCK"))
	a := w.get(t, "viewer", "/")
	want(t, a, 200, "<h1>Today</h1>", `id="failed-by-code"`, "<code>unknown_skus</code>", `id="failed-oldest"`,
		`id="pending-by-warehouse"`, "Pages DC (<code>wh_pg</code>)", `id="outbox-backlog"`)
	want(t, w.get(t, "", "/"), 303)
}

// The invoices due: an open period of this month is finalized within two
// months, not within a minute... unless the month ends within it.
func TestInvoicesFinalizingSoon(t *testing.T) {
	w := newWorld(t)
	soon, err := w.billing.ListFinalizingSoon.Handle(context.Background(), billingapp.ListFinalizingSoon{Within: 62 * 24 * time.Hour, Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, s := range soon {
		if s.OrganizationID == "org_pg_bill" {
			found = true
			if !s.FinalizesAt.After(s.Ends) {
				t.Errorf("finalized at %v, not after the period's end %v (the grace)", s.FinalizesAt, s.Ends)
			}
		}
	}
	if !found {
		t.Errorf("org_pg_bill's open invoice is not due within 62 days: %+v", soon)
	}
}
