package postgres

import (
	"context"
	"database/sql"

	"github.com/uptrace/bun"

	"github.com/acme3pl/fulfillment/ports"
)

// UnitOfWork implements ports.UnitOfWork with db.RunInTx: the repositories
// handed to fn are built on the transaction.
type UnitOfWork struct {
	db *bun.DB
}

var _ ports.UnitOfWork = (*UnitOfWork)(nil)

// NewUnitOfWork returns a unit of work on db.
func NewUnitOfWork(db *bun.DB) *UnitOfWork { return &UnitOfWork{db: db} }

// Do runs fn in a READ COMMITTED transaction; row locks taken inside fn
// (SELECT … FOR UPDATE, conditional UPDATEs) serialise competing work.
func (u *UnitOfWork) Do(ctx context.Context, fn func(ctx context.Context, r ports.Repositories) error) error {
	err := u.db.RunInTx(ctx, &sql.TxOptions{Isolation: sql.LevelReadCommitted}, func(ctx context.Context, tx bun.Tx) error {
		return fn(ctx, NewRepositories(tx))
	})
	return dbErr(err)
}

// NewRepositories builds every repository on db, which is a *bun.DB or a
// bun.Tx.
func NewRepositories(db bun.IDB) ports.Repositories {
	return ports.Repositories{
		Organizations: &OrganizationRepository{db: db},
		Warehouses:    &WarehouseRepository{db: db},
		Inventory:     &InventoryRepository{db: db},
		Invoices:      &InvoiceRepository{db: db},
		Shipments:     &ShipmentRepository{db: db},
		Receipts:      &OrderReceiptRepository{db: db},
		APIKeys:       &APIKeyRepository{db: db},
		Fixtures:      &FixtureStore{db: db},
	}
}
