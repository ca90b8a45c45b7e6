package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"io/fs"
	"sync"
	"testing"

	"github.com/uptrace/bun"

	"github.com/acme3pl/fulfillment/adapters/postgres"
	pgfixture "github.com/acme3pl/fulfillment/adapters/postgres/fixture"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/shipping"
	"github.com/acme3pl/fulfillment/domain/warehouse"
	fixtureports "github.com/acme3pl/fulfillment/ports/fixture"
	warehouseports "github.com/acme3pl/fulfillment/ports/warehouse"
	"time"
)

// The helpers the tests of adapters/postgres and of its context packages
// share.

// ScanQuery runs a query on db and scans its answer into a T (a value, a
// struct, or a slice of either for its rows), failing t on an error.
func ScanQuery[T any](t testing.TB, db bun.IDB, query string, args ...any) T {
	t.Helper()
	var v T
	if err := db.NewRaw(query, args...).Scan(context.Background(), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// Namer returns a function that suffixes names with a random tag of its
// own: every test names fresh records, so that tests sharing a package's
// database (and -count=N reruns) never see each other's rows.
func Namer() func(string) string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	tag := hex.EncodeToString(b[:])
	return func(name string) string { return name + "_" + tag }
}

// Warehouse is a warehouse of a test's fixture.
func Warehouse(id, name string, active bool) domain.Warehouse {
	return domain.Warehouse{
		ID: id, Name: name, Active: active, Tags: []string{},
		Address: domain.Address{Name: name, Line1: "1 Dock St", City: "Newark", State: "NJ", CountryCode: "US", PostalCode: "07102"},
		Contact: domain.Contact{Name: "Ops", Email: "ops@example.com", PhoneNumber: "+1 555 0100"},
	}
}

// Item is a product or carton of a test's fixture.
func Item(org string, kind shipping.ItemKind, id, sku string) shipping.InventoryItem {
	return shipping.InventoryItem{ID: id, OrganizationID: org, Kind: kind, SKU: sku, Name: sku + " item"}
}

// Pool opens a pool of at most conns connections to dsn's database,
// closed when t ends.
func Pool(t *testing.T, dsn string, conns int) *bun.DB {
	t.Helper()
	db, err := postgres.Open(postgres.Options{DSN: dsn, MaxOpenConns: conns})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// WantStock checks one stock row.
func WantStock(t *testing.T, db *bun.DB, table, warehouse, item string, onHand, reserved int64) {
	t.Helper()
	column := "carton_id"
	if table == "product_stock" {
		column = "product_id"
	}
	var got struct {
		OnHand   int64 `bun:"on_hand"`
		Reserved int64 `bun:"reserved"`
	}
	err := db.NewRaw("SELECT on_hand, reserved FROM ? WHERE warehouse_id = ? AND ? = ?",
		bun.Ident(table), warehouse, bun.Ident(column), item).Scan(context.Background(), &got)
	if err != nil {
		t.Fatalf("stock of %s at %s: %v", item, warehouse, err)
	}
	if got.OnHand != onHand || got.Reserved != reserved {
		t.Fatalf("%s at %s: on hand %d, reserved %d; want %d, %d", item, warehouse, got.OnHand, got.Reserved, onHand, reserved)
	}
}

// Run starts fns at once (behind a barrier) and returns their errors.
func Run(fns []func() error) []error {
	errs := make([]error, len(fns))
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, fn := range fns {
		wg.Go(func() {
			<-start
			errs[i] = fn()
		})
	}
	close(start)
	wg.Wait()
	return errs
}

// RunSame runs calls at once: each must succeed and answer the same as
// the first (by key); it returns how many took effect (fresh), the others
// being replays of that one. what names a call in failures.
func RunSame[R any](t *testing.T, what string, calls []func() (R, error), fresh func(R) bool, key func(R) string) int {
	t.Helper()
	results := make([]R, len(calls))
	fns := make([]func() error, len(calls))
	for i, call := range calls {
		fns[i] = func() (err error) {
			results[i], err = call()
			return err
		}
	}
	took := 0
	for i, err := range Run(fns) {
		if err != nil {
			t.Fatalf("%s %d: %v", what, i, err)
		}
		if fresh(results[i]) {
			took++
		}
		if key(results[i]) != key(results[0]) {
			t.Fatalf("%s %d answered %s, %s 0 %s", what, i, key(results[i]), what, key(results[0]))
		}
	}
	return took
}

// Load writes f to dsn's database through the fixture store, in one unit
// of work.
func Load(t *testing.T, dsn string, f fixtureports.Fixture) fixtureports.Counts {
	t.Helper()
	db := Open(t, dsn)
	var counts fixtureports.Counts
	err := postgres.NewUnitOfWork(db, pgfixture.Repositories).Do(context.Background(), func(ctx context.Context, r fixtureports.Repositories) error {
		var err error
		counts, err = r.Fixtures.Load(ctx, f)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return counts
}

// LedgerHolds checks the ledger's invariant for the organization: every
// balance is the sum of its item's movements at its warehouse.
func LedgerHolds(t *testing.T, db *bun.DB, org string) {
	t.Helper()
	var broken int
	err := db.NewRaw(`SELECT count(*) FROM (
	SELECT s.product_id AS item, s.warehouse_id, s.on_hand FROM product_stock s JOIN products p ON p.id = s.product_id WHERE p.organization_id = ?
	UNION ALL
	SELECT s.carton_id, s.warehouse_id, s.on_hand FROM carton_stock s JOIN cartons c ON c.id = s.carton_id WHERE c.organization_id = ?
) AS b
WHERE b.on_hand <> (SELECT coalesce(sum(m.quantity), 0) FROM stock_movements m
	WHERE m.warehouse_id = b.warehouse_id AND coalesce(m.product_id, m.carton_id) = b.item)`, org, org).Scan(context.Background(), &broken)
	if err != nil {
		t.Fatal(err)
	}
	if broken != 0 {
		t.Fatalf("%d balance(s) of %s are not the sum of their movements", broken, org)
	}
}

// Holder is a second session's transaction that holds what stmts lock
// (rows, references, advisory locks) until the test rolls it back.
func Holder(t *testing.T, db *bun.DB, stmts ...string) bun.Tx {
	t.Helper()
	tx, err := db.BeginTx(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range stmts {
		if _, err := tx.ExecContext(context.Background(), q); err != nil {
			_ = tx.Rollback()
			t.Fatalf("%s: %v", q, err)
		}
	}
	return tx
}

// NoBilling is the warehouse's reports without billing: every service
// offered, no period closed, nothing charged.
type NoBilling struct{}

func (NoBilling) CheckServiceOffered(context.Context, warehouseports.Repositories, string, string, time.Time) error {
	return nil
}
func (NoBilling) CheckPeriodOpen(context.Context, warehouseports.Repositories, string, time.Time) error {
	return nil
}
func (NoBilling) ChargeReceipt(context.Context, warehouseports.Repositories, *warehouse.Receipt) error {
	return nil
}
func (NoBilling) ChargeService(context.Context, warehouseports.Repositories, *warehouse.ServiceRecord) error {
	return nil
}
func (NoBilling) ChargeShipment(context.Context, warehouseports.Repositories, *shipping.Shipment) error {
	return nil
}

// NewMigrator is postgres.NewMigrator on db, failing t on an error.
func NewMigrator(t testing.TB, db *bun.DB, fsys fs.FS, opts ...postgres.MigrateOptions) *postgres.Migrator {
	t.Helper()
	m, err := postgres.NewMigrator(db, fsys, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
