package postgres_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/acme3pl/fulfillment/adapters/postgres"
	billingapp "github.com/acme3pl/fulfillment/application/billing"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/audit"
	"github.com/acme3pl/fulfillment/domain/billing"
	auditports "github.com/acme3pl/fulfillment/ports/audit"
)

// operator is the actor of the operator actions the tests run.
var operator = audit.Actor{Subject: "cli:tester"}

// auditRecords lists the audit records of action, oldest first.
func auditRecords(t *testing.T, db *bun.DB, action audit.Action) []audit.Record {
	t.Helper()
	var out []audit.Record
	err := postgres.NewAuditLog(db).List(context.Background(), auditports.Query{}, func(r audit.Record) error {
		if r.Action == action {
			out = append(out, r)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// checkAudit fails unless recs are one record per want outcome, in order,
// each of org, by operator, at the clock's time.
func checkAudit(t *testing.T, recs []audit.Record, org string, want ...audit.Outcome) {
	t.Helper()
	if len(recs) != len(want) {
		t.Fatalf("%d records %+v, want outcomes %v", len(recs), recs, want)
	}
	for i, r := range recs {
		if r.Outcome != want[i] || r.OrganizationID != org || r.Actor != operator || r.ID == "" || r.At.IsZero() {
			t.Errorf("record %d = %+v (input %s), want %s of %s by %v", i, r, r.Input, want[i], org, operator)
		}
	}
}

func inputOf(t *testing.T, r audit.Record) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Input, &m); err != nil {
		t.Fatalf("input %s: %v", r.Input, err)
	}
	return m
}

func countRows(t *testing.T, db *bun.DB, q string, args ...any) int {
	t.Helper()
	var n int
	if err := db.NewRaw(q, args...).Scan(context.Background(), &n); err != nil {
		t.Fatal(err)
	}
	return n
}

// The log is append-only: the table refuses UPDATE, DELETE and TRUNCATE,
// and the record stays as written.
func TestAuditRecordsCannotBeChanged(t *testing.T) {
	b, _ := newBillOctober(t, "org_audit")
	ctx := context.Background()
	recs := auditRecords(t, b.db, audit.RatesSet)
	checkAudit(t, recs, "org_audit", audit.Done)
	for _, q := range []string{
		`UPDATE audit_records SET outcome = 'unchanged'`,
		`UPDATE audit_records SET actor_subject = 'someone else' WHERE id = '` + recs[0].ID + `'`,
		`DELETE FROM audit_records`,
		`TRUNCATE audit_records`,
	} {
		if _, err := b.db.ExecContext(ctx, q); err == nil {
			t.Errorf("%s: accepted", q)
		}
	}
	checkAudit(t, auditRecords(t, b.db, audit.RatesSet), "org_audit", audit.Done)
}

// charges add: done, unchanged for the same reference again, the refusal's
// code for the reference with other content (and nothing else changed), and
// invalid_parameter for a malformed charge.
func TestAuditChargesAdd(t *testing.T) {
	b, _ := newBillOctober(t, "org_ca")
	ctx := context.Background()
	c := billingapp.AddCharge{Actor: operator, OrganizationID: "org_ca", Reference: "credit-1", Title: "Goodwill",
		Quantity: "1", UnitCost: -50000, Description: "late truck"}
	for range 2 {
		if _, err := b.add.Handle(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	other := c
	other.UnitCost = -60000
	if _, err := b.add.Handle(ctx, other); !errors.Is(err, billing.ErrReferenceConflict) {
		t.Fatalf("other content: %v, want a reference conflict", err)
	}
	bad := c
	bad.Quantity, bad.Reference = "0", "credit-2"
	if _, err := b.add.Handle(ctx, bad); err == nil {
		t.Fatal("a quantity of 0 accepted")
	}
	if n := countRows(t, b.db, `SELECT count(*) FROM billing_charges WHERE organization_id = 'org_ca' AND fee = 'operator'`); n != 1 {
		t.Fatalf("%d operator charges, want 1", n)
	}
	recs := auditRecords(t, b.db, audit.ChargesAdd)
	checkAudit(t, recs, "org_ca", audit.Done, audit.Unchanged, "reference_conflict", "invalid_parameter")
	in := inputOf(t, recs[2])
	if in["reference"] != "credit-1" || in["unitCost"] != float64(-60000) || in["title"] != "Goodwill" || in["quantity"] != "1" {
		t.Errorf("input %s: want the arguments of the refused charge", recs[2].Input)
	}
}

// billing close: done when it finalized an invoice, unchanged when it
// finalized nothing, not_found for an organization without a period.
func TestAuditBillingClose(t *testing.T) {
	b, clock := newBillOctober(t, "org_cl")
	ctx := context.Background()
	clock.set(utc("2030-11-10T12:00:00Z"))
	if _, err := b.close.Handle(ctx, billingapp.ClosePeriod{Actor: operator, OrganizationID: "org_cl"}); err != nil {
		t.Fatal(err)
	}
	if out, err := b.close.Handle(ctx, billingapp.ClosePeriod{Actor: operator, OrganizationID: "org_cl"}); err != nil || out.Key != "" {
		t.Fatalf("closed again: %+v, %v; want nothing finalized", out, err)
	}
	if _, err := b.close.Handle(ctx, billingapp.ClosePeriod{Actor: operator, OrganizationID: "org_nope"}); err == nil {
		t.Fatal("closed an organization without a period")
	}
	recs := auditRecords(t, b.db, audit.BillingClose)
	if len(recs) != 3 {
		t.Fatalf("%d records, want 3", len(recs))
	}
	checkAudit(t, recs[:2], "org_cl", audit.Done, audit.Unchanged)
	checkAudit(t, recs[2:], "org_nope", "not_found")
	if in := inputOf(t, recs[0]); in["organizationId"] != "org_cl" || len(in) != 1 {
		t.Errorf("input %s", recs[0].Input)
	}
}

// invoices status: done, naming the invoice's organization; a transition
// refused records invalid_state and leaves the status; an unknown invoice
// not_found.
func TestAuditInvoicesStatus(t *testing.T) {
	b, clock := newBillOctober(t, "org_st")
	ctx := context.Background()
	clock.set(utc("2030-11-10T12:00:00Z"))
	closed, err := b.close.Handle(ctx, billingapp.ClosePeriod{Actor: operator, OrganizationID: "org_st"})
	if err != nil || closed.InvoiceID == "" {
		t.Fatalf("close: %+v, %v", closed, err)
	}
	inv := closed.InvoiceID
	if _, err := b.move.Handle(ctx, billingapp.ChangeInvoiceStatus{Actor: operator, InvoiceID: inv, To: "paid"}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.move.Handle(ctx, billingapp.ChangeInvoiceStatus{Actor: operator, InvoiceID: inv, To: "unpaid"}); !errors.Is(err, domain.ErrInvalidState) {
		t.Fatalf("paid → unpaid: %v, want invalid state", err)
	}
	if _, err := b.move.Handle(ctx, billingapp.ChangeInvoiceStatus{Actor: operator, InvoiceID: "inv_nope", To: "paid"}); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("unknown invoice: %v", err)
	}
	if n := countRows(t, b.db, `SELECT count(*) FROM invoices WHERE id = ? AND status = 'paid'`, inv); n != 1 {
		t.Fatalf("the refused move changed the invoice (%d paid)", n)
	}
	recs := auditRecords(t, b.db, audit.InvoicesStatus)
	if len(recs) != 3 {
		t.Fatalf("%d records, want 3", len(recs))
	}
	checkAudit(t, recs[:2], "org_st", audit.Done, "invalid_state")
	checkAudit(t, recs[2:], "", "not_found")
	if in := inputOf(t, recs[1]); in["invoiceId"] != inv || in["to"] != "unpaid" {
		t.Errorf("input %s", recs[1].Input)
	}
}

// rates set: done, unchanged for the same card again, invalid_state for a
// card reaching into a closed period (and the card in force stays).
func TestAuditRatesSet(t *testing.T) {
	b, clock := newBillOctober(t, "org_rs")
	ctx := context.Background()
	card := billExampleCard("org_rs", "2030-11-01")
	if _, err := b.set.Handle(ctx, billingapp.SetRateCard{Actor: operator, Card: card}); err != nil {
		t.Fatal(err)
	}
	clock.set(utc("2030-11-10T12:00:00Z"))
	if _, err := b.close.Handle(ctx, billingapp.ClosePeriod{Actor: operator, OrganizationID: "org_rs"}); err != nil {
		t.Fatal(err)
	}
	cards := countRows(t, b.db, `SELECT count(*) FROM rate_cards WHERE organization_id = 'org_rs'`)
	cheaper := billExampleCard("org_rs", "2030-11-05")
	cheaper.Fees["pick_pack_order"] = 1
	if _, err := b.set.Handle(ctx, billingapp.SetRateCard{Actor: operator, Card: cheaper}); !errors.Is(err, domain.ErrInvalidState) {
		t.Fatalf("a card into a closed period: %v", err)
	}
	if n := countRows(t, b.db, `SELECT count(*) FROM rate_cards WHERE organization_id = 'org_rs'`); n != cards {
		t.Fatalf("the refused card changed the cards: %d, want %d", n, cards)
	}
	recs := auditRecords(t, b.db, audit.RatesSet)
	// The first is newBillOctober's own card.
	checkAudit(t, recs, "org_rs", audit.Done, audit.Unchanged, "invalid_state")
	if in := inputOf(t, recs[2]); in["effectiveFrom"] != "2030-11-05" || in["fees"].(map[string]any)["pick_pack_order"] != float64(1) {
		t.Errorf("input %s", recs[2].Input)
	}
}

// Many operators adding the same charge at once: one is done, every other
// unchanged (they queue on the organization's billing lock), and each has
// its record.
func TestAuditChargesAddConcurrently(t *testing.T) {
	const n = 16
	clock := &billClock{now: utc("2030-10-30T00:00:00Z")}
	b := newBillInstance(t, billDatabase(t), clock, time.UTC, 8)
	billCardedOrg(t, b, "org_cc")
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := b.add.Handle(context.Background(), billingapp.AddCharge{Actor: operator, OrganizationID: "org_cc",
				Reference: "same", Title: "Relabelling", Quantity: "2", UnitCost: 125})
			if err != nil {
				errs <- fmt.Errorf("add %d: %w", i, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	var done, unchanged int
	recs := auditRecords(t, b.db, audit.ChargesAdd)
	for _, r := range recs {
		switch r.Outcome {
		case audit.Done:
			done++
		case audit.Unchanged:
			unchanged++
		}
	}
	if len(recs) != n || done != 1 || unchanged != n-1 {
		t.Fatalf("%d records: %d done, %d unchanged; want %d: 1 done, the rest unchanged", len(recs), done, unchanged, n)
	}
}
