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
	db    *bun.DB
	stmts *statements // the order intake's, prepared on first use
}

var _ ports.UnitOfWork = (*UnitOfWork)(nil)

// NewUnitOfWork returns a unit of work on db.
func NewUnitOfWork(db *bun.DB) *UnitOfWork {
	return &UnitOfWork{db: db, stmts: newStatements(db, preparedQueries)}
}

// Do runs fn in a transaction at the server's default isolation, READ
// COMMITTED; row locks taken inside fn (SELECT … FOR UPDATE, INSERT … ON
// CONFLICT) serialise competing work. Naming the level would make pgdriver
// send "BEGIN; SET TRANSACTION …" on every transaction for nothing.
//
// The repositories run the order intake's statements as server-side
// prepared statements (prepared.go); the set is prepared before the
// transaction begins, the first time.
func (u *UnitOfWork) Do(ctx context.Context, fn func(ctx context.Context, r ports.Repositories) error) error {
	prepared := u.stmts.get(ctx)
	err := u.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		return fn(ctx, newRepositories(tx, prepared))
	})
	if ctx.Err() != nil && (errors.Is(err, sql.ErrTxDone) || errors.Is(err, driver.ErrBadConn)) {
		// The context ended during the transaction: database/sql rolled it
		// back, or the connection was cut at its deadline, and the next
		// statement or the commit says only that. Say why: the deadline (503)
		// or a caller that went away (499), never a fault of the service.
		err = fmt.Errorf("%w: %w", ctx.Err(), err)
	}
	return dbErr(err)
}

// NewRepositories builds every repository on db, which is a *bun.DB or a
// bun.Tx. Their statements run unprepared.
func NewRepositories(db bun.IDB) ports.Repositories { return newRepositories(db, nil) }

// newRepositories builds every repository on db, with the prepared
// statements of prepared (nil: none).
func newRepositories(db bun.IDB, prepared *preparedSet) ports.Repositories {
	hot := runner{db: db, prepared: prepared}
	return ports.Repositories{
		Organizations:  &OrganizationRepository{db: db},
		Warehouses:     &WarehouseRepository{db: db},
		Inventory:      &InventoryRepository{db: db, hot: hot},
		Invoices:       &InvoiceRepository{db: db},
		Shipments:      &ShipmentRepository{db: db, hot: hot},
		Receipts:       &OrderReceiptRepository{db: db, hot: hot},
		APIKeys:        &APIKeyRepository{db: db},
		WebhookSecrets: &WebhookSecretRepository{db: db},
		Fixtures:       &FixtureStore{db: db},
	}
}
