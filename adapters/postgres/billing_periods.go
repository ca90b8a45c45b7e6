package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/ports"
)

// BillingPeriodRepository implements ports.BillingPeriodRepository.
type BillingPeriodRepository struct{ run runner }

var _ ports.BillingPeriodRepository = (*BillingPeriodRepository)(nil)

const (
	// startPeriodSQL opens an organization's first period, or moves its
	// open period's start back when none of its periods was finalized yet
	// (a card dated before the first one).
	startPeriodSQL = `INSERT INTO billing_periods (organization_id, starts_at, ends_at, invoice_id, status)
VALUES ($1, $2, $3, $4, 'open')
ON CONFLICT (organization_id) WHERE status = 'open' DO UPDATE SET starts_at = least(billing_periods.starts_at, EXCLUDED.starts_at),
	ends_at = CASE WHEN EXCLUDED.starts_at < billing_periods.starts_at THEN EXCLUDED.ends_at ELSE billing_periods.ends_at END
	WHERE NOT EXISTS (SELECT 1 FROM billing_periods f WHERE f.organization_id = EXCLUDED.organization_id AND f.status = 'finalized')`

	openPeriodSQL = `SELECT organization_id, starts_at, ends_at, invoice_id FROM billing_periods
WHERE organization_id = $1 AND status = 'open'`
	lockOpenPeriodSQL  = openPeriodSQL + ` FOR UPDATE`
	shareOpenPeriodSQL = openPeriodSQL + ` FOR SHARE`

	duePeriodsSQL = `SELECT organization_id, starts_at, ends_at, invoice_id FROM billing_periods
WHERE status = 'open' AND ends_at <= $1 ORDER BY ends_at, organization_id`

	oldestOverdueSQL = `SELECT min(ends_at) FROM billing_periods WHERE status = 'open' AND ends_at <= $1`

	// collectSQL moves the unpaid invoices billing made to collecting once
	// their due date is $2 behind $1; the time of the change is the moment
	// it became due, so a late run writes what a punctual one would.
	collectSQL = `UPDATE invoices i SET status = 'collecting', updated_at = greatest(i.updated_at, i.due_date + $2::interval)
FROM billing_periods p
WHERE p.invoice_id = i.id AND p.status = 'finalized' AND i.status = 'unpaid' AND i.deleted_at IS NULL
	AND i.due_date + $2::interval <= $1
RETURNING i.id, i.organization_id`

	invoiceStatusSQL = `SELECT status, organization_id FROM invoices
WHERE id = $1 AND deleted_at IS NULL AND status IN ('unpaid', 'pending_payment', 'paid', 'cancelled', 'refunded', 'collecting')
FOR UPDATE`

	setInvoiceStatusSQL = `UPDATE invoices SET status = $3, updated_at = greatest(updated_at, $4)
WHERE id = $1 AND status = $2 AND deleted_at IS NULL`
)

func scanOpenPeriod(rows *sql.Rows) (ports.OpenPeriod, error) {
	var p ports.OpenPeriod
	err := rows.Scan(&p.OrganizationID, &p.Period.Start, &p.Period.End, &p.InvoiceID)
	return p, err
}

func (r *BillingPeriodRepository) one(ctx context.Context, q string, args ...any) (ports.OpenPeriod, error) {
	var p ports.OpenPeriod
	found := false
	err := r.run.query(ctx, q, func(rows *sql.Rows) error {
		var err error
		p, err = scanOpenPeriod(rows)
		found = true
		return err
	}, args...)
	if err != nil {
		return p, dbErr(err)
	}
	if !found {
		return p, domain.ErrNotFound
	}
	return p, nil
}

// Start opens the organization's first period or moves the open one's
// start back while nothing was finalized.
func (r *BillingPeriodRepository) Start(ctx context.Context, organizationID string, start, end time.Time, invoiceID string) (ports.OpenPeriod, error) {
	if _, err := r.run.exec(ctx, startPeriodSQL, organizationID, start, end, invoiceID); err != nil {
		return ports.OpenPeriod{}, dbErr(err)
	}
	return r.LockOpen(ctx, organizationID)
}

// LockOpen reads the open period FOR UPDATE.
func (r *BillingPeriodRepository) LockOpen(ctx context.Context, organizationID string) (ports.OpenPeriod, error) {
	return r.locked(ctx, lockOpenPeriodSQL, organizationID)
}

// lockOpenManySQL locks the open periods of the organizations $1 in the
// organizations' order.
const lockOpenManySQL = `SELECT organization_id, starts_at, ends_at, invoice_id FROM billing_periods
WHERE status = 'open' AND organization_id = ANY($1::text[]) ORDER BY organization_id FOR UPDATE`

// finalizeLockSQL is the catch-up's advisory lock (catchUpLockSQL) taken
// shared: finalizations run beside each other (their periods are locked in
// the organizations' order, and the year's counter after them), never
// beside a catch-up, which holds periods FOR SHARE in no set order.
const finalizeLockSQL = `SELECT pg_advisory_xact_lock_shared(8042001)`

// LockOpenMany locks the organizations' open periods, after the catch-up's
// lock taken shared (finalizeLockSQL), so that a catch-up and a
// finalization never wait for each other in turn.
func (r *BillingPeriodRepository) LockOpenMany(ctx context.Context, organizationIDs []string) ([]ports.OpenPeriod, error) {
	if err := r.run.query(ctx, finalizeLockSQL, func(*sql.Rows) error { return nil }); err != nil {
		return nil, dbErr(err)
	}
	var out []ports.OpenPeriod
	err := r.run.query(ctx, lockOpenManySQL, func(rows *sql.Rows) error {
		p, err := scanOpenPeriod(rows)
		out = append(out, p)
		return err
	}, pgArray(organizationIDs))
	return out, dbErr(err)
}

// hasPeriodsSQL tells an organization that bills from one that does not.
const hasPeriodsSQL = `SELECT count(*) FROM (SELECT 1 FROM billing_periods WHERE organization_id = $1 LIMIT 1) p`

// locked runs a locking read of the open period. When a finalization
// committed while it waited for the row, the row it waited for is no
// longer open and the next one is not in its snapshot: it finds nothing.
// A new statement sees the new open period, so it reads again (a few
// times: finalizations may follow one another) while the organization
// has periods at all.
func (r *BillingPeriodRepository) locked(ctx context.Context, q, organizationID string) (ports.OpenPeriod, error) {
	for range 5 {
		p, err := r.one(ctx, q, organizationID)
		if !errors.Is(err, domain.ErrNotFound) {
			return p, err
		}
		var n int
		if err := r.run.query(ctx, hasPeriodsSQL, func(rows *sql.Rows) error { return rows.Scan(&n) }, organizationID); err != nil {
			return p, dbErr(err)
		}
		if n == 0 {
			return p, domain.ErrNotFound
		}
	}
	return ports.OpenPeriod{}, fmt.Errorf("the open period of %s kept moving: %w", organizationID, domain.ErrTimeout)
}

// closedSQL tells whether an organization has a finalized period.
const closedSQL = `SELECT count(*) FROM (SELECT 1 FROM billing_periods WHERE organization_id = $1 AND status = 'finalized' LIMIT 1) p`

// ClosedUntil is the start of the open period once a period before it was
// finalized; zero when none was (before its first period nothing of the
// organization is billed, so nothing is closed) or it has no period at all.
func (r *BillingPeriodRepository) ClosedUntil(ctx context.Context, organizationID string) (time.Time, error) {
	p, err := r.locked(ctx, shareOpenPeriodSQL, organizationID)
	if err != nil {
		if errors.Is(err, domain.ErrNotFound) {
			return time.Time{}, nil
		}
		return time.Time{}, err
	}
	var n int
	if err := r.run.query(ctx, closedSQL, func(rows *sql.Rows) error { return rows.Scan(&n) }, organizationID); err != nil {
		return time.Time{}, dbErr(err)
	}
	if n == 0 {
		return time.Time{}, nil
	}
	return p.Period.Start, nil
}

// PeriodClosed reports whether at lies in a closed period of the
// organization: receipts and services dated so are refused (422
// period_closed). It holds the open period FOR SHARE until the caller's
// transaction ends.
func (r *BillingPeriodRepository) PeriodClosed(ctx context.Context, organizationID string, at time.Time) (bool, error) {
	until, err := r.ClosedUntil(ctx, organizationID)
	return err == nil && at.Before(until), err
}

// Due lists the open periods that ended by endedBy, oldest first.
func (r *BillingPeriodRepository) Due(ctx context.Context, endedBy time.Time) ([]ports.OpenPeriod, error) {
	var out []ports.OpenPeriod
	err := r.run.query(ctx, duePeriodsSQL, func(rows *sql.Rows) error {
		p, err := scanOpenPeriod(rows)
		out = append(out, p)
		return err
	}, endedBy)
	return out, dbErr(err)
}

// OldestOverdue is the end of the oldest open period that ended by endedBy.
func (r *BillingPeriodRepository) OldestOverdue(ctx context.Context, endedBy time.Time) (time.Time, error) {
	var oldest sql.NullTime
	err := r.run.query(ctx, oldestOverdueSQL, func(rows *sql.Rows) error { return rows.Scan(&oldest) }, endedBy)
	return oldest.Time, dbErr(err)
}

// Collect moves the unpaid invoices billing made, due `after` before now,
// to collecting.
func (r *BillingPeriodRepository) Collect(ctx context.Context, now time.Time, after time.Duration) ([]ports.InvoiceRef, error) {
	var refs []ports.InvoiceRef
	err := r.run.query(ctx, collectSQL, func(rows *sql.Rows) error {
		var ref ports.InvoiceRef
		err := rows.Scan(&ref.ID, &ref.OrganizationID)
		refs = append(refs, ref)
		return err
	}, now, fmt.Sprintf("%d microseconds", after.Microseconds()))
	return refs, dbErr(err)
}

// Status reads a visible invoice's status and organization FOR UPDATE.
func (r *BillingPeriodRepository) Status(ctx context.Context, invoiceID string) (status, organizationID string, err error) {
	err = r.run.query(ctx, invoiceStatusSQL, func(rows *sql.Rows) error { return rows.Scan(&status, &organizationID) }, invoiceID)
	if err != nil {
		return "", "", dbErr(err)
	}
	if status == "" {
		return "", "", domain.ErrNotFound
	}
	return status, organizationID, nil
}

// SetStatus moves an invoice from one status to another.
func (r *BillingPeriodRepository) SetStatus(ctx context.Context, invoiceID string, from, to string, now time.Time) error {
	n, err := r.run.exec(ctx, setInvoiceStatusSQL, invoiceID, from, to, now)
	if err != nil {
		return dbErr(err)
	}
	if n != 1 {
		return fmt.Errorf("invoice %s is no longer %s: %w", invoiceID, from, domain.ErrConflict)
	}
	return nil
}
