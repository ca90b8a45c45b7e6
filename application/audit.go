package application

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/audit"
	"github.com/acme3pl/fulfillment/ports"
	auditports "github.com/acme3pl/fulfillment/ports/audit"
)

// Operation is an operator action about to run, as its audit record names
// it: who, what, on which organization (when the arguments name it), with
// which arguments. Input is marshalled to a JSON object: it must hold the
// arguments only, never a secret.
type Operation struct {
	Actor          audit.Actor
	Action         audit.Action
	OrganizationID string
	Input          any
}

// AuditedWork is an operator action's work in its transaction. rec is its
// audit record, its Outcome audit.Done: work sets it to audit.Unchanged
// when it changed nothing, and OrganizationID when it learns it (the
// invoice's organization). What it returns decides the rest (Audited).
type AuditedWork[R any] func(ctx context.Context, r R, rec *audit.Record) error

// Auditor runs the operators' actions with their audit records
// (docs/audit.md), in the transactions of a context whose Repositories R
// embed the audit trail (auditports.Trail). It is the one way an operator
// action writes its record.
type Auditor[R auditports.Audited] struct {
	uow   ports.UnitOfWork[R]
	clock ports.Clock
	ids   ports.IDGenerator
}

// NewAuditor returns the auditor of the actions run in uow's transactions.
func NewAuditor[R auditports.Audited](uow ports.UnitOfWork[R], clock ports.Clock, ids ports.IDGenerator) *Auditor[R] {
	return &Auditor[R]{uow: uow, clock: clock, ids: ids}
}

// refusalBudget bounds the transaction that records a refusal once the
// action's own context has ended (a deadline, an operator's Ctrl-C).
const refusalBudget = 5 * time.Second

// Do runs work in one unit of work and writes op's record there too, with
// its outcome: the action and its record commit together. When work (or
// the commit) fails, everything it did is rolled back, and the record is
// then written in a transaction of its own with the error's code as the
// outcome (AuditOutcome), so the log tells a refused action without
// showing anything it did not do. The record is also the event
// operator.action, recorded in the same transaction. It returns work's
// error as it was: the record of a refusal is written on the side.
func (a *Auditor[R]) Do(ctx context.Context, op Operation, work AuditedWork[R]) error {
	rec, err := a.newRecord(ctx, op)
	if err != nil {
		return err
	}
	err = a.uow.Do(ctx, func(ctx context.Context, r R) error {
		try := rec // what work learns is kept for the refusal's record
		if err := work(ctx, r, &try); err != nil {
			rec.OrganizationID = try.OrganizationID
			return err
		}
		rec.OrganizationID = try.OrganizationID
		return a.appendRecord(ctx, r, try)
	})
	if err != nil {
		rec.Outcome = AuditOutcome(err)
		_ = a.record(ctx, rec) // the action's error is what its caller needs; a failed record cannot hide it
	}
	return err
}

// Record writes op's record with outcome in a transaction of its own: the
// record of an action that ran in several transactions of its own (a
// replay of every failed order, one per order), written once it ended.
func (a *Auditor[R]) Record(ctx context.Context, op Operation, outcome audit.Outcome) error {
	rec, err := a.newRecord(ctx, op)
	if err != nil {
		return err
	}
	rec.Outcome = outcome
	return a.record(ctx, rec)
}

// record writes rec in a transaction of its own, given a little time of
// its own when ctx has ended.
func (a *Auditor[R]) record(ctx context.Context, rec audit.Record) error {
	if ctx.Err() != nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), refusalBudget)
		defer cancel()
	}
	return a.uow.Do(ctx, func(ctx context.Context, r R) error { return a.appendRecord(ctx, r, rec) })
}

func (a *Auditor[R]) newRecord(ctx context.Context, op Operation) (audit.Record, error) {
	if err := op.Actor.Validate(); err != nil {
		return audit.Record{}, err
	}
	if !op.Action.Valid() {
		return audit.Record{}, fmt.Errorf("audit: unknown action %q", op.Action)
	}
	input, err := json.Marshal(op.Input)
	if err != nil {
		return audit.Record{}, fmt.Errorf("audit: the input of %s: %w", op.Action, err)
	}
	if len(input) == 0 || input[0] != '{' {
		return audit.Record{}, fmt.Errorf("audit: the input of %s is not a JSON object", op.Action)
	}
	var traceID string
	if sc := trace.SpanContextFromContext(ctx); sc.HasTraceID() {
		traceID = sc.TraceID().String()
	}
	return audit.Record{
		At: a.clock.Now(), Actor: op.Actor, Action: op.Action,
		OrganizationID: op.OrganizationID, Input: input, Outcome: audit.Done, TraceID: traceID,
	}, nil
}

// appendRecord writes rec, with a new ID, and its event in r's
// transaction. The ID is drawn here, once the action's work has drawn its
// own.
func (a *Auditor[R]) appendRecord(ctx context.Context, r R, rec audit.Record) error {
	rec.ID = a.ids.NewID("aud")
	trail := r.AuditTrail()
	if err := trail.Audit.Append(ctx, rec); err != nil {
		return fmt.Errorf("audit record: %w", err)
	}
	return trail.Events.Record(ctx, auditports.OperatorActionEvent(rec))
}

// AuditOutcome is the outcome of an action that failed with err: its
// kind's name, but for a malformed argument (invalid_parameter, as the API
// says) and a client gone (client_closed_request).
func AuditOutcome(err error) audit.Outcome {
	switch k := KindOf(err); k {
	case domain.KindInvalid, domain.KindOnHandBound:
		return audit.ErrorOutcome("invalid_parameter")
	case domain.KindClientGone:
		return audit.ErrorOutcome("client_closed_request")
	default:
		return audit.ErrorOutcome(string(k))
	}
}
