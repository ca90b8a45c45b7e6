package postgres_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/adapters/postgres"
	"github.com/acme3pl/fulfillment/adapters/postgres/pgtest"
	pgshipping "github.com/acme3pl/fulfillment/adapters/postgres/shipping"
	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/shipping"
	shippingports "github.com/acme3pl/fulfillment/ports/shipping"
)

// serverLimits are the server's bounds for a request deadline of 2 s
// (bootstrap's SessionLimits): lock_timeout 1 s.
var serverLimits = postgres.SessionLimits{StatementTimeout: 1500 * time.Millisecond, LockTimeout: time.Second,
	IdleInTransactionTimeout: 1500 * time.Millisecond, IOTimeout: 2 * time.Second, ClientCheckInterval: 250 * time.Millisecond}

// lockedTable begins a transaction on a session of its own that holds
// LOCK TABLE carton_stock until the test ends.
func lockedTable(t *testing.T) {
	t.Helper()
	tx, err := shipDB(t, 1).BeginTx(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tx.Rollback() })
	if _, err := tx.ExecContext(context.Background(), "LOCK TABLE carton_stock IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
}

// Behind a table another session holds, on a pool whose statements are
// not prepared yet (a server just started, fresh connections), every
// request waits for the lock once, lock_timeout, and answers a timeout:
// preparing the statements before the transaction must not add waits of
// its own (it made the second request wait 1.8 s, cut by its deadline,
// i/o timeout).
func TestLockWaitOnFreshConnectionsIsBoundedByLockTimeout(t *testing.T) {
	f := shipInvFixture(t, "org_fresh_lock")
	lockedTable(t)
	uow := postgres.NewUnitOfWork(limitsDB(t, serverLimits), pgshipping.Repositories)
	for i := range 3 {
		ctx, cancel := context.WithTimeout(context.Background(), 1800*time.Millisecond)
		start := time.Now()
		err := uow.Do(ctx, func(ctx context.Context, r shippingports.Repositories) error {
			return r.Inventory.Reserve(ctx, f.org, f.whA, shipping.SPD, []shipping.ShipmentLine{{ItemID: f.ctn1, Quantity: 1}})
		})
		cancel()
		elapsed := time.Since(start)
		t.Logf("request %d: %s, %v", i+1, elapsed.Round(time.Millisecond), err)
		if !errors.Is(err, domain.ErrTimeout) || elapsed > serverLimits.LockTimeout+300*time.Millisecond {
			t.Fatalf("request %d behind the lock: %v after %s, want a timeout within lock_timeout (%s)", i+1, err, elapsed, serverLimits.LockTimeout)
		}
	}
}

// A caller that goes away while its statement waits for a lock: the round
// trip ends at once as the caller's (context.Canceled: status 499), and
// PostgreSQL ends the statement and its transaction promptly, not when
// lock_timeout runs out.
func TestCallerGoneEndsItsStatement(t *testing.T) {
	f := shipInvFixture(t, "org_gone_lock")
	lockedTable(t)
	limits := serverLimits
	limits.LockTimeout, limits.StatementTimeout = 20*time.Second, 20*time.Second // only the hang-up can end it in time
	uow := postgres.NewUnitOfWork(limitsDB(t, limits), pgshipping.Repositories)
	watcher := shipDB(t, 1)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- uow.Do(ctx, func(ctx context.Context, r shippingports.Repositories) error {
			return r.Inventory.Reserve(ctx, f.org, f.whA, shipping.SPD, []shipping.ShipmentLine{{ItemID: f.ctn1, Quantity: 1}})
		})
	}()
	pgtest.WaitForLockWaiters(t, watcher, 1)
	cancel()
	hungUp := time.Now()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) || application.KindOf(err) != domain.KindClientGone {
			t.Fatalf("the unit of work of a caller gone: %v (kind %s), want context.Canceled", err, application.KindOf(err))
		}
		if d := time.Since(hungUp); d > 500*time.Millisecond {
			t.Fatalf("the unit of work returned %s after its caller went away", d)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the unit of work still waits 5 s after its caller went away")
	}
	pgtest.WaitForNoLockWaiter(t, watcher)
	if d := time.Since(hungUp); d > 2*time.Second {
		t.Fatalf("the statement still waited for the lock %s after its caller went away", d)
	}
}
