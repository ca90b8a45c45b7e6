package postgres

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"

	"github.com/uptrace/bun"

	"github.com/acme3pl/fulfillment/ports"
)

// UnitOfWork implements ports.UnitOfWork with db.RunInTx: the repositories
// handed to fn are built on the transaction.
type UnitOfWork struct {
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

var _ ports.UnitOfWork = (*UnitOfWork)(nil)

// NewUnitOfWork returns a unit of work on db that records no events.
func NewUnitOfWork(db *bun.DB, opts ...Option) *UnitOfWork {
	return NewUnitOfWorkWithEvents(db, nil, opts...)
}

// NewUnitOfWorkWithEvents returns a unit of work on db whose transactions
// write the events their use cases record in the outbox; a nil outbox
// records none.
func NewUnitOfWorkWithEvents(db *bun.DB, outbox *Outbox, opts ...Option) *UnitOfWork {
	u := &UnitOfWork{db: db, stmts: newStatements(db), outbox: outbox}
	for _, o := range opts {
		o(&u.billing)
	}
	return u
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
func (u *UnitOfWork) Do(ctx context.Context, fn func(ctx context.Context, r ports.Repositories) error) error {
	u.stmts.prepareWanted(ctx)
	events := &txEvents{outbox: u.outbox, inTx: true}
	err := u.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		run := runner{db: tx, stmts: u.stmts}
		if err := fn(ctx, newRepositories(run, events, u.billing)); err != nil {
			return err
		}
		return events.flush(ctx, run)
	})
	if err == nil && events.wrote && u.outbox.Wake != nil {
		u.outbox.Wake()
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

// NewRepositories builds every repository on db: on a pool (*bun.DB) they
// run their statements prepared on it; on a transaction (bun.Tx),
// unprepared.
func NewRepositories(db bun.IDB, opts ...Option) ports.Repositories {
	run := runner{db: db}
	if pool, ok := db.(*bun.DB); ok {
		run.stmts = newStatements(pool)
	}
	var b BillingSettings
	for _, o := range opts {
		o(&b)
	}
	return newRepositories(run, &txEvents{}, b)
}

// newRepositories builds every repository on run, recording events with
// events.
func newRepositories(run runner, events *txEvents, b BillingSettings) ports.Repositories {
	return ports.Repositories{
		Organizations:  &OrganizationRepository{run: run},
		Warehouses:     &WarehouseRepository{run: run},
		Inventory:      &InventoryRepository{run: run},
		Invoices:       &InvoiceRepository{run: run},
		Shipments:      &ShipmentRepository{run: run},
		Receipts:       &OrderReceiptRepository{run: run, events: events},
		APIKeys:        &APIKeyRepository{run: run},
		WebhookSecrets: &WebhookSecretRepository{run: run},
		Fixtures:       &FixtureStore{run: run},

		WarehouseReceipts: &WarehouseReceiptRepository{run: run},
		WarehouseServices: &WarehouseServiceRepository{run: run},
		Stock:             &StockLedger{run: run},

		RateCards:      &RateCardRepository{run: run},
		Charges:        &ChargeRepository{run: run, settings: b},
		BillingPeriods: &BillingPeriodRepository{run: run},

		RateLimits: &OrganizationRateLimits{run: run},
		Audit:      &AuditLog{run: run},
		Overview:   &OverviewReader{run: run},

		OperatorSessions: &OperatorSessions{run: run},

		Events: events,
	}
}
