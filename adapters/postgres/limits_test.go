package postgres_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/acme3pl/fulfillment/adapters/postgres"
	"github.com/acme3pl/fulfillment/adapters/postgres/pgtest"
	pgshipping "github.com/acme3pl/fulfillment/adapters/postgres/shipping"
	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/shipping"
	shippingports "github.com/acme3pl/fulfillment/ports/shipping"
)

// limitsDB opens a pool whose sessions carry limits, as `serve` does.
func limitsDB(t *testing.T, l postgres.SessionLimits) *bun.DB {
	t.Helper()
	db, err := postgres.Open(postgres.Options{DSN: testDSN, MaxOpenConns: 2, Limits: l})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// A row lock held by another session (an operator's open transaction) is
// waited for at most lock_timeout: the reservation fails as a timeout and
// leaves nothing behind.
func TestSessionLockTimeoutEndsAWaitForARowLock(t *testing.T) {
	f := shipInvFixture(t, "org_limits_lock")
	holder := shipDB(t, 1)
	ctx := context.Background()
	tx := lockedRow(t, holder, f.ctn1, f.whA)

	uow := postgres.NewUnitOfWork(limitsDB(t, postgres.SessionLimits{LockTimeout: 300 * time.Millisecond}), pgshipping.Repositories)
	done := make(chan error, 1)
	go func() {
		done <- uow.Do(ctx, func(ctx context.Context, r shippingports.Repositories) error {
			return r.Inventory.Reserve(ctx, f.org, f.whA, shipping.SPD, []shipping.ShipmentLine{{ItemID: f.ctn1, Quantity: 1}})
		})
	}()
	select {
	case err := <-done:
		if !errors.Is(err, domain.ErrTimeout) {
			t.Fatalf("reserve behind a held lock: %v, want domain.ErrTimeout", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the reservation still waits for the lock after 10s")
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	shipWantStock(t, shipDB(t, 1), "carton_stock", f.whA, f.ctn1, 5, 0)
}

// statement_timeout ends a statement that runs too long, as a timeout.
func TestSessionStatementTimeoutEndsALongStatement(t *testing.T) {
	db := limitsDB(t, postgres.SessionLimits{StatementTimeout: 200 * time.Millisecond})
	start := time.Now()
	_, err := db.ExecContext(context.Background(), "SELECT pg_sleep(5)")
	if err = postgres.DBErr(err); !errors.Is(err, domain.ErrTimeout) {
		t.Fatalf("a 5 s statement under a 200 ms statement_timeout: %v, want domain.ErrTimeout", err)
	}
	if elapsed := time.Since(start); elapsed > 4*time.Second {
		t.Fatalf("the statement ran %s", elapsed)
	}
}

// idle_in_transaction_session_timeout ends a transaction whose client went
// quiet (a partition, a paused process): its locks are released without
// the client's help.
func TestSessionIdleInTransactionTimeoutReleasesLocks(t *testing.T) {
	f := shipInvFixture(t, "org_limits_idle")
	db := limitsDB(t, postgres.SessionLimits{IdleInTransactionTimeout: 200 * time.Millisecond})
	ctx := context.Background()
	tx := lockedRow(t, db, f.ctn1, f.whA)
	// The client goes quiet inside its transaction; another session gets the
	// row lock once the server has ended the idle one.
	other := shipDB(t, 1)
	lctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if _, err := other.ExecContext(lctx, "SELECT 1 FROM carton_stock WHERE carton_id = ? AND warehouse_id = ? FOR UPDATE", f.ctn1, f.whA); err != nil {
		t.Fatalf("the idle transaction's lock was not released: %v", err)
	}
	if _, err := tx.ExecContext(ctx, "SELECT 1"); err == nil {
		t.Fatal("the idle transaction went on after the server ended it")
	}
}

// A unit of work whose context ends while it runs is rolled back by
// database/sql, and its commit then fails with sql.ErrTxDone: that is the
// deadline (503) or a caller gone (499), not a fault of the service (500).
func TestUnitOfWorkEndedByItsContext(t *testing.T) {
	db := pgtest.Open(t, testDSN)
	uow := postgres.NewUnitOfWork(db, pgshipping.Repositories)
	// A first unit of work prepares the intake's statements and opens a
	// connection, so that the timed ones below begin at once.
	if err := uow.Do(context.Background(), func(context.Context, shippingports.Repositories) error { return nil }); err != nil {
		t.Fatal(err)
	}
	// rolledBack returns once database/sql has rolled the transaction back
	// after its context ended (as on a busy server, where the work
	// outlasts the deadline): PostgreSQL then shows no open transaction.
	rolledBack := func(ctx context.Context) {
		<-ctx.Done()
		pgtest.WaitForNoOpenTransaction(t, db)
	}
	tests := []struct {
		name     string
		ctx      func() (context.Context, context.CancelFunc)
		cancelIn bool // the caller goes away during the unit of work
		want     error
		wantKind string
	}{
		{name: "deadline", ctx: func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), time.Second)
		}, want: context.DeadlineExceeded, wantKind: "timeout"},
		{name: "caller gone", ctx: func() (context.Context, context.CancelFunc) {
			return context.WithCancel(context.Background())
		}, cancelIn: true, want: context.Canceled, wantKind: "client_gone"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := tt.ctx()
			defer cancel()
			ran := false
			err := uow.Do(ctx, func(ctx context.Context, _ shippingports.Repositories) error {
				ran = true
				if tt.cancelIn {
					cancel()
				}
				rolledBack(ctx)
				return nil
			})
			if !ran {
				t.Fatalf("the unit of work did not run: %v", err)
			}
			if !errors.Is(err, tt.want) || string(application.KindOf(err)) != tt.wantKind {
				t.Fatalf("error %v (kind %s), want %v (%s)", err, string(application.KindOf(err)), tt.want, tt.wantKind)
			}
		})
	}
}

// The two new facts of the schema: bounded line quantities, one shipment
// per storefront order.
func TestSchemaBoundsQuantitiesAndOrderSources(t *testing.T) {
	db := pgtest.Open(t, testDSN)
	ctx := context.Background()
	n := shipNamer()
	shipShipFixture(t, n)
	org, wh := n("org_ship_repo"), n("wh_ship_repo")
	insert := func(id string, orderID int64) error {
		_, err := db.ExecContext(ctx, `INSERT INTO shipments (id, organization_id, kind, status, warehouse_id,
			source_type, source_order_id, test, created_at, updated_at, submitted_at)
			VALUES (?, ?, 'pick_pack', 'pending', ?, 'storefront', ?, true, now(), now(), now())`, id, org, wh, orderID)
		return err
	}
	if err := insert(n("shp_src_1"), 77); err != nil {
		t.Fatal(err)
	}
	if err := insert(n("shp_src_2"), 77); err == nil {
		t.Fatal("a second shipment of one storefront order was stored")
	}
	// Both kinds of line (products, where the intake's summed SKUs land, and
	// cartons) take 1,000,000,000 and refuse one more.
	for _, line := range []struct{ table, column, item string }{
		{"shipment_items", "product_id", n("prod_ship_repo_1")},
		{"shipment_cartons", "carton_id", n("ctn_ship_repo_1")},
	} {
		for _, q := range []int64{1_000_000_001, 0} {
			_, err := db.ExecContext(ctx, `INSERT INTO ? (organization_id, shipment_id, ?, position, quantity) VALUES (?, ?, ?, 0, ?)`,
				bun.Ident(line.table), bun.Ident(line.column), org, n("shp_src_1"), line.item, q)
			if err == nil {
				t.Fatalf("%s stored a line of %d", line.table, q)
			}
		}
		_, err := db.ExecContext(ctx, `INSERT INTO ? (organization_id, shipment_id, ?, position, quantity) VALUES (?, ?, ?, 0, 1000000000)`,
			bun.Ident(line.table), bun.Ident(line.column), org, n("shp_src_1"), line.item)
		if err != nil {
			t.Fatalf("%s refused a line of 1,000,000,000: %v", line.table, err)
		}
	}
}

// lockedRow begins a transaction on db, rolled back when t ends unless
// ended before, and takes in it the row lock of one stock row, making sure
// the row exists (a lock on no row would prove nothing).
func lockedRow(t *testing.T, db *bun.DB, carton, warehouse string) bun.Tx {
	t.Helper()
	tx, err := db.BeginTx(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tx.Rollback() })
	res, err := tx.ExecContext(context.Background(),
		"SELECT 1 FROM carton_stock WHERE carton_id = ? AND warehouse_id = ? FOR UPDATE", carton, warehouse)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		t.Fatalf("locked %d stock rows, want 1", n)
	}
	return tx
}
