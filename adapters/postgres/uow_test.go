package postgres_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/adapters/postgres"
	"github.com/acme3pl/fulfillment/adapters/postgres/pgtest"
	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/ports"
)

// A unit of work whose context ends while it runs is rolled back by
// database/sql, and its commit then fails with sql.ErrTxDone: that is the
// deadline (503) or a caller gone (499), not a fault of the service (500).
func TestUnitOfWorkEndedByItsContext(t *testing.T) {
	db := pgtest.Open(t, testDSN)
	uow := postgres.NewUnitOfWork(db)
	// A first unit of work prepares the intake's statements and opens a
	// connection, so that the timed ones below begin at once.
	if err := uow.Do(context.Background(), func(context.Context, ports.Repositories) error { return nil }); err != nil {
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
			err := uow.Do(ctx, func(ctx context.Context, _ ports.Repositories) error {
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
