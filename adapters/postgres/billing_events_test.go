package postgres_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/adapters/postgres"
	pgbilling "github.com/acme3pl/fulfillment/adapters/postgres/billing"
	"github.com/acme3pl/fulfillment/adapters/system"
	billingapp "github.com/acme3pl/fulfillment/application/billing"
	"github.com/acme3pl/fulfillment/domain/audit"
	"github.com/acme3pl/fulfillment/domain/invoicing"
	eventsports "github.com/acme3pl/fulfillment/ports/events"
)

// invoiceEncoder writes an invoice event as its type, subject, status and
// total: what the test checks of the finalized invoice it reports.
type invoiceEncoder struct{}

func (invoiceEncoder) EncodeEvent(id string, e eventsports.Event) (string, []byte, error) {
	if rec, ok := e.Data.(audit.Record); ok { // an operator's action: its outcome
		b, err := json.Marshal(map[string]any{"id": id, "status": string(rec.Outcome), "org": e.OrganizationID})
		return "fulfillment.test." + string(e.Type), b, err
	}
	inv, ok := e.Data.(*invoicing.Invoice)
	if !ok {
		return "", nil, fmt.Errorf("not an invoice: %T", e.Data)
	}
	b, err := json.Marshal(map[string]any{"id": id, "status": string(inv.Status()), "total": inv.TotalAmount(), "org": e.OrganizationID})
	return "fulfillment.test." + string(e.Type), b, err
}

// A billing run that finalizes a period writes invoice.finalized in its
// transaction: the invoice as the API shows it (unpaid, its total).
func TestBillingFinalizationRecordsItsEvent(t *testing.T) {
	ctx := context.Background()
	b, clock := newBillOctober(t)
	opt := postgres.WithBilling(postgres.BillingSettings{Location: time.UTC, ChargeTestShipments: true})
	b.deps.UnitOfWork = postgres.NewUnitOfWorkWithEvents(b.db, &postgres.Outbox{Encoder: invoiceEncoder{}, IDs: system.IDs{}}, pgbilling.Repositories, opt)
	run := billingapp.NewRunBillingHandler(b.deps)
	org := "org_events"
	billCardedOrg(t, b, org)
	billAllNovember(t, b, clock, org)
	if _, err := run.Handle(ctx, billingapp.RunBilling{}); err != nil {
		t.Fatal(err)
	}
	var (
		typ, subject, body string
		n                  int
	)
	if err := b.db.QueryRowContext(ctx, `SELECT count(*) FROM event_outbox`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("events in the outbox: %d, %v; want 1", n, err)
	}
	if err := b.db.QueryRowContext(ctx, `SELECT type, subject, body FROM event_outbox`).Scan(&typ, &subject, &body); err != nil {
		t.Fatal(err)
	}
	inv, err := b.deps.Repos.Invoices.Get(ctx, org, subject)
	if err != nil {
		t.Fatalf("the event's subject %q is no invoice of %s: %v", subject, org, err)
	}
	var got struct {
		Status string
		Total  int64
		Org    string
	}
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatal(err)
	}
	if typ != string(eventsports.EventInvoiceFinalized) || got.Status != string(inv.Status()) || got.Status != "unpaid" ||
		got.Total != inv.TotalAmount() || got.Org != org {
		t.Fatalf("event %s %s %+v; the invoice: %s %d", typ, subject, got, inv.Status(), inv.TotalAmount())
	}

	// The operator's status changes and the run's move to collecting each
	// write invoice.status_changed with the invoice as it became; a refused
	// change writes nothing.
	change := billingapp.NewChangeInvoiceStatusHandler(b.deps)
	for _, to := range []string{"pending_payment", "unpaid"} {
		if _, err := change.Handle(ctx, billingapp.ChangeInvoiceStatus{Actor: operator, InvoiceID: subject, To: to}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := change.Handle(ctx, billingapp.ChangeInvoiceStatus{Actor: operator, InvoiceID: subject, To: "refunded"}); err == nil {
		t.Fatal("unpaid → refunded was allowed")
	}
	clock.set(inv.DueDate().Add(31 * 24 * time.Hour))
	if res, err := run.Handle(ctx, billingapp.RunBilling{}); err != nil || len(res.Collected) != 1 || res.Collected[0] != subject {
		t.Fatalf("collecting: %+v, %v", res.Collected, err)
	}
	// (The run also finalizes the months since, each with its own event.)
	rows, err := b.db.QueryContext(ctx, `SELECT type, subject, body FROM event_outbox WHERE subject = ? ORDER BY id`, subject)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = rows.Close() }()
	var seen []string
	for rows.Next() {
		if err := rows.Scan(&typ, &subject, &body); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(body), &got); err != nil {
			t.Fatal(err)
		}
		seen = append(seen, typ+" "+got.Status)
	}
	want := []string{"invoice.finalized unpaid", "invoice.status_changed pending_payment",
		"invoice.status_changed unpaid", "invoice.status_changed collecting"}
	if strings.Join(seen, ", ") != strings.Join(want, ", ") {
		t.Fatalf("events %v, want %v", seen, want)
	}
	// Each status change, the refused one too, is also an operator.action
	// in the same outbox: its audit record.
	var actions []string
	rows, err = b.db.QueryContext(ctx, `SELECT body FROM event_outbox WHERE type = 'operator.action' ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = rows.Close() }()
	for rows.Next() {
		if err := rows.Scan(&body); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(body), &got); err != nil {
			t.Fatal(err)
		}
		actions = append(actions, got.Status+" "+got.Org)
	}
	if want := []string{"done " + org, "done " + org, "invalid_state " + org}; !slices.Equal(actions, want) {
		t.Fatalf("operator.action events %v, want %v", actions, want)
	}
}
