package postgres

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/acme3pl/fulfillment/ports"
)

// Transactions run every context's units of work on one pool: one set
// of prepared statements, one outbox, one billing's settings. Each
// context's unit of work (UnitOfWorkOf) binds its repositories to the
// transaction.
type Transactions struct {
	db      *bun.DB
	stmts   *statements
	billing BillingSettings
	outbox  *Outbox // nil: events off
}

// Option sets what some repositories need of the configuration.
type Option func(*BillingSettings)

// WithBilling gives the billing repositories their settings (the default:
// UTC, test shipments not charged).
func WithBilling(s BillingSettings) Option { return func(b *BillingSettings) { *b = s } }

// NewTransactions returns the transactions on db whose units of work
// write the events their use cases record in the outbox; a nil outbox
// records none.
func NewTransactions(db *bun.DB, outbox *Outbox, opts ...Option) *Transactions {
	t := &Transactions{db: db, stmts: newStatements(db), outbox: outbox}
	for _, o := range opts {
		o(&t.billing)
	}
	return t
}

// Handle is a database handle the repositories are built on — a unit of
// work's transaction, or the pool — with the events of the unit of work
// and the billing's settings. A context's bind (ShippingRepositories, …)
// builds its repositories on it.
type Handle struct {
	run     runner
	events  *txEvents
	billing BillingSettings
}

// UnitOfWork implements ports.UnitOfWork[R] with db.RunInTx: the
// repositories handed to fn are those bind builds on the transaction.
type UnitOfWork[R any] struct {
	t    *Transactions
	bind func(Handle) R
}

var _ ports.UnitOfWork[struct{}] = (*UnitOfWork[struct{}])(nil)

// UnitOfWorkOf is the unit of work on t of the context whose repositories
// bind builds.
func UnitOfWorkOf[R any](t *Transactions, bind func(Handle) R) *UnitOfWork[R] {
	return &UnitOfWork[R]{t: t, bind: bind}
}

// NewUnitOfWork returns a unit of work on db, on transactions of its own,
// that records no events.
func NewUnitOfWork[R any](db *bun.DB, bind func(Handle) R, opts ...Option) *UnitOfWork[R] {
	return UnitOfWorkOf(NewTransactions(db, nil, opts...), bind)
}

// NewUnitOfWorkWithEvents returns a unit of work on db, on transactions
// of its own, that writes the events its use cases record in the outbox;
// a nil outbox records none.
func NewUnitOfWorkWithEvents[R any](db *bun.DB, outbox *Outbox, bind func(Handle) R, opts ...Option) *UnitOfWork[R] {
	return UnitOfWorkOf(NewTransactions(db, outbox, opts...), bind)
}

// Do runs fn in a transaction at the server's default isolation, READ
// COMMITTED; row locks taken inside fn (SELECT … FOR UPDATE, INSERT … ON
// CONFLICT) serialise competing work. Naming the level would make pgdriver
// send "BEGIN; SET TRANSACTION …" on every transaction for nothing.
//
// The repositories run their statements prepared (statements.go); those
// first run in an earlier transaction are prepared before this one begins.
//
// Events fn records are written before the commit, by a statement of fn
// that carries them or by one INSERT after fn (outbox.go); once the
// transaction has committed, the local relay is woken.
func (u *UnitOfWork[R]) Do(ctx context.Context, fn func(ctx context.Context, r R) error) error {
	t := u.t
	t.stmts.prepareWanted(ctx)
	events := &txEvents{outbox: t.outbox, inTx: true}
	err := t.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		run := runner{db: tx, stmts: t.stmts}
		if err := fn(ctx, u.bind(Handle{run: run, events: events, billing: t.billing})); err != nil {
			return err
		}
		return events.flush(ctx, run)
	})
	if err == nil && events.wrote && t.outbox.Wake != nil {
		t.outbox.Wake()
	}
	if ctx.Err() != nil && (errors.Is(err, sql.ErrTxDone) || errors.Is(err, driver.ErrBadConn)) {
		// The context ended during the transaction: database/sql rolled it
		// back, or the connection was cut at its deadline, and the next
		// statement or the commit says only that. Say why: the deadline (503)
		// or a caller that went away (499), never a fault of the service.
		err = fmt.Errorf("%w: %w", ctx.Err(), err)
	}
	return dbErr(err)
}

// OnPool is the handle of db outside a unit of work: on a pool (*bun.DB)
// the repositories run their statements prepared on it; on a transaction
// (bun.Tx), unprepared. Its events recorder refuses to record.
func OnPool(db bun.IDB, opts ...Option) Handle {
	run := runner{db: db}
	if pool, ok := db.(*bun.DB); ok {
		run.stmts = newStatements(pool)
	}
	var b BillingSettings
	for _, o := range opts {
		o(&b)
	}
	return Handle{run: run, events: &txEvents{}, billing: b}
}

// NewRepositories builds the repositories bind makes on db (OnPool).
func NewRepositories[R any](db bun.IDB, bind func(Handle) R, opts ...Option) R {
	return bind(OnPool(db, opts...))
}

// Runner runs the statements of the repositories built on h.
func (h Handle) Runner() Runner { return h.run }

// BillingSettings are what billing's statements need of the configuration.
type BillingSettings struct {
	// Location is BILLING_TIMEZONE: days of storage are its days.
	Location *time.Location
	// ChargeTestShipments charges test shipments too (sandbox, where every
	// shipment is one); production never charges them.
	ChargeTestShipments bool
}

// Zone is the time zone of the billing's days, by name (UTC unless set).
func (s BillingSettings) Zone() string {
	if s.Location == nil {
		return "UTC"
	}
	return s.Location.String()
}

// Billing is the billing's settings of h (WithBilling).
func (h Handle) Billing() BillingSettings { return h.billing }
