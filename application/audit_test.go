package application_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"go.opentelemetry.io/otel/trace"

	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/application/apptest"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/audit"
	"github.com/acme3pl/fulfillment/domain/billing"
	"github.com/acme3pl/fulfillment/ports"
	auditports "github.com/acme3pl/fulfillment/ports/audit"
	eventsports "github.com/acme3pl/fulfillment/ports/events"
)

// txAudit is a unit of work whose transactions keep what they append, and
// the events they record, only when they commit.
type txAudit struct {
	txs       int
	committed []audit.Record
	events    []eventsports.Event
}

type pendingLog struct{ recs *[]audit.Record }

func (p pendingLog) Append(_ context.Context, rec audit.Record) error {
	*p.recs = append(*p.recs, rec)
	return nil
}

func (p pendingLog) List(context.Context, auditports.Query, func(audit.Record) error) error {
	return nil
}

func (p pendingLog) Page(context.Context, auditports.Query, ports.Page) ([]audit.Record, bool, error) {
	return nil, false, nil
}

type pendingEvents struct{ evs *[]eventsports.Event }

func (p pendingEvents) Record(_ context.Context, e eventsports.Event) error {
	*p.evs = append(*p.evs, e)
	return nil
}

func (u *txAudit) Do(ctx context.Context, fn func(ctx context.Context, r auditports.Trail) error) error {
	u.txs++
	var recs []audit.Record
	var evs []eventsports.Event
	if err := fn(ctx, auditports.Trail{Audit: pendingLog{&recs}, Events: pendingEvents{&evs}}); err != nil {
		return err
	}
	u.committed = append(u.committed, recs...)
	u.events = append(u.events, evs...)
	return nil
}

func newAuditor() (*txAudit, *application.Auditor[auditports.Trail]) {
	u := &txAudit{}
	return u, application.NewAuditor(u, &apptest.Clock{}, &apptest.IDs{})
}

var op = application.Operation{Actor: audit.Actor{Subject: "alice", Email: "alice@example.com"}, Action: audit.ChargesAdd,
	OrganizationID: "org_a", Input: map[string]string{"reference": "r1"}}

// An action that succeeds commits its record, with its event and the
// use case's trace ID, in its own transaction.
func TestAuditorRecordsInTheActionsTransaction(t *testing.T) {
	u, a := newAuditor()
	sc := trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{1, 2, 3}, SpanID: trace.SpanID{1}})
	ctx := trace.ContextWithSpanContext(context.Background(), sc)
	err := a.Do(ctx, op, func(_ context.Context, r auditports.Trail, rec *audit.Record) error {
		rec.Outcome = audit.Unchanged
		return nil
	})
	if err != nil || u.txs != 1 || len(u.committed) != 1 || len(u.events) != 1 {
		t.Fatalf("%v: %d transactions, %d records, %d events; want one of each", err, u.txs, len(u.committed), len(u.events))
	}
	rec := u.committed[0]
	if rec.Outcome != audit.Unchanged || rec.Actor != op.Actor || rec.OrganizationID != "org_a" || string(rec.Input) != `{"reference":"r1"}` ||
		rec.TraceID != sc.TraceID().String() || rec.ID == "" {
		t.Fatalf("record %+v", rec)
	}
	if e := u.events[0]; e.Type != eventsports.EventOperatorAction || e.Subject != rec.ID || e.Data.(audit.Record).ID != rec.ID {
		t.Fatalf("event %+v", e)
	}
}

// A refused action is rolled back with nothing of it recorded; its record
// then says the refusal, in a transaction of its own, and keeps the
// organization the work learned. The action's error is returned as it was.
func TestAuditorRecordsARefusalOnItsOwn(t *testing.T) {
	u, a := newAuditor()
	refusal := domain.ErrInvalidState
	err := a.Do(context.Background(), op, func(ctx context.Context, r auditports.Trail, rec *audit.Record) error {
		rec.OrganizationID = "org_b"
		if err := r.Audit.Append(ctx, audit.Record{ID: "rolled back"}); err != nil {
			return err
		}
		return refusal
	})
	if !errors.Is(err, refusal) || u.txs != 2 || len(u.committed) != 1 {
		t.Fatalf("%v: %d transactions, %d records; want the refusal and its record in a second transaction", err, u.txs, len(u.committed))
	}
	if rec := u.committed[0]; rec.Outcome != "invalid_state" || rec.OrganizationID != "org_b" || rec.ID == "rolled back" {
		t.Fatalf("record %+v", rec)
	}
}

// No actor, or an action not of the list: refused before anything runs.
func TestAuditorRefusesAnActionWithoutItsActor(t *testing.T) {
	u, a := newAuditor()
	for _, bad := range []application.Operation{
		{Action: audit.ChargesAdd, Input: map[string]string{}},
		{Actor: op.Actor, Action: "charges.delete", Input: map[string]string{}},
		{Actor: op.Actor, Action: audit.ChargesAdd, Input: []string{"not an object"}},
	} {
		err := a.Do(context.Background(), bad, func(context.Context, auditports.Trail, *audit.Record) error {
			t.Fatal("the work ran")
			return nil
		})
		if err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
	if u.txs != 0 {
		t.Fatalf("%d transactions", u.txs)
	}
}

// The outcome of an error is its code as the API says it.
func TestAuditOutcome(t *testing.T) {
	for err, want := range map[error]audit.Outcome{
		domain.ErrNotFound:                                        "not_found",
		domain.Invalid("quantity", "bad"):                         "invalid_parameter",
		context.Canceled:                                          "client_closed_request",
		errors.New("a bug"):                                       "internal",
		errors.Join(domain.ErrInvalidState):                       "invalid_state",
		fmt.Errorf("%w: charge c1", billing.ErrReferenceConflict): "reference_conflict",
		fmt.Errorf("%w: its line", billing.ErrPastBounds):         "past_bounds",
	} {
		if got := application.AuditOutcome(err); got != want || !got.Valid() {
			t.Errorf("AuditOutcome(%v) = %q, want %q", err, got, want)
		}
	}
}
