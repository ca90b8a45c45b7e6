package warehouse

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/domain/warehouse"
	"github.com/acme3pl/fulfillment/ports"
	warehouseports "github.com/acme3pl/fulfillment/ports/warehouse"
)

// reporting is what the handler of a warehouse's report works with.
type reporting struct {
	uow     ports.UnitOfWork[warehouseports.Repositories]
	clock   ports.Clock
	ids     ports.IDGenerator
	billing warehouseports.ReportBilling
}

// report is a warehouse's report (*warehouse.Receipt,
// *warehouse.ServiceRecord) as its transaction reads it.
type report[T any] interface {
	WarehouseID() string
	OrganizationID() string
	Reference() string
	SameContent(T) bool
	Time() time.Time
	TimeGiven() bool
	DateAfter(now, closedUntil time.Time) bool
}

// Recorded is the report stored under its reference, and whether this
// report made it (false: a retry, answered with the first).
type Recorded[T any] struct {
	Report  T
	Created bool
}

// recordReport is the transaction of a warehouse's report, the same for
// receipts and services; fresh is made and checked before it opens. The
// warehouse must serve the organization (invalid_warehouse); resolve, when
// given, checks the report against the organization's records (a
// receipt's items); then create stores it unless the warehouse has one
// under its reference: a report stored now goes on with record, which
// writes what it makes (stock, charges, its event) in the same
// transaction; one the warehouse has under the reference already is a
// retry when its content is the same (the stored one is the answer and
// nothing more is written), and otherwise warehouse.ErrReferenceConflict.
// It returns the report stored and whether this one made it.
func recordReport[T report[T]](ctx context.Context, uow ports.UnitOfWork[warehouseports.Repositories], kind string, fresh T,
	resolve func(ctx context.Context, r warehouseports.Repositories) error,
	create func(ctx context.Context, r warehouseports.Repositories, fresh T) (stored T, created bool, err error),
	record func(ctx context.Context, r warehouseports.Repositories) error,
) (Recorded[T], error) {
	var stored T
	var created bool
	err := uow.Do(ctx, func(ctx context.Context, r warehouseports.Repositories) error {
		if _, err := application.ActiveWarehouse(ctx, r.Warehouses, fresh.OrganizationID(), fresh.WarehouseID()); err != nil {
			return err
		}
		if resolve != nil {
			if err := resolve(ctx, r); err != nil {
				return err
			}
		}
		var err error
		stored, created, err = create(ctx, r, fresh)
		switch {
		case err != nil:
			return fmt.Errorf("store %s %s: %w", kind, fresh.Reference(), err)
		case created:
			stored = fresh
			return record(ctx, r)
		case !fresh.SameContent(stored):
			return fmt.Errorf("%s %s of warehouse %s: %w", kind, fresh.Reference(), fresh.WarehouseID(), warehouse.ErrReferenceConflict)
		}
		return nil
	})
	if err != nil {
		return Recorded[T]{}, err
	}
	return Recorded[T]{Report: stored, Created: created}, nil
}

// checkPeriod refuses a new report dated inside a closed period of its
// organization (warehouse.ErrPeriodClosed), after the organization's billing
// lock, which billing's check takes shared and which is held until the
// report commits: no close can end a period meanwhile. A report sent
// without its time is never refused so: its time, read before the
// transaction, lies before the end of a close that committed since (it
// raced the close); it is dated now, read under the lock, and no earlier
// than that close's end (DateAfter), and redate writes the new time where
// the report's transaction wrote the old one (was).
func checkPeriod[T report[T]](ctx context.Context, h reporting, r warehouseports.Repositories, fresh T, redate func(was time.Time) error) error {
	err := h.billing.CheckPeriodOpen(ctx, r, fresh.OrganizationID(), fresh.Time())
	if fresh.TimeGiven() || !errors.Is(err, warehouse.ErrPeriodClosed) {
		return err
	}
	until, err := r.BillingPeriods.ClosedUntil(ctx, fresh.OrganizationID())
	if err != nil {
		return fmt.Errorf("billing period of %s: %w", fresh.OrganizationID(), err)
	}
	was := fresh.Time()
	if !fresh.DateAfter(h.clock.Now(), until) {
		return fmt.Errorf("%s lies in a closed period of %s: %w", was.Format(time.RFC3339), fresh.OrganizationID(), warehouse.ErrPeriodClosed)
	}
	if err := redate(was); err != nil {
		return fmt.Errorf("date %s %s after the close: %w", fresh.WarehouseID(), fresh.Reference(), err)
	}
	return nil
}
