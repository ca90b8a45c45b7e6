package billing

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/acme3pl/fulfillment/adapters/postgres"
	pginvoicing "github.com/acme3pl/fulfillment/adapters/postgres/invoicing"
	"github.com/acme3pl/fulfillment/domain"
	billingports "github.com/acme3pl/fulfillment/ports/billing"
)

// PeriodRepository implements billingports.PeriodRepository.
type PeriodRepository struct{ run postgres.Runner }

var _ billingports.PeriodRepository = (*PeriodRepository)(nil)

const (
	// startPeriodSQL opens an organization's first period, or moves its
	// open period's start back when none of its periods was finalized yet
	// (a card dated before the first one).
	startPeriodSQL postgres.SQLInsert = `INSERT INTO billing_periods (organization_id, starts_at, ends_at, invoice_id, status)
VALUES ($1, $2, $3, $4, 'open')
ON CONFLICT (organization_id) WHERE status = 'open' DO UPDATE SET starts_at = least(billing_periods.starts_at, EXCLUDED.starts_at),
	ends_at = CASE WHEN EXCLUDED.starts_at < billing_periods.starts_at THEN EXCLUDED.ends_at ELSE billing_periods.ends_at END
	WHERE NOT EXISTS (SELECT 1 FROM billing_periods f WHERE f.organization_id = EXCLUDED.organization_id AND f.status = 'finalized')`

	openPeriodSQL postgres.SQLSelect = `SELECT organization_id, starts_at, ends_at, invoice_id FROM billing_periods
WHERE organization_id = $1 AND status = 'open'`
	lockOpenPeriodSQL postgres.SQLSelect = openPeriodSQL + ` FOR UPDATE`

	duePeriodsSQL postgres.SQLSelect = `SELECT organization_id, starts_at, ends_at, invoice_id FROM billing_periods
WHERE status = 'open' AND ends_at <= $1 ORDER BY ends_at, organization_id`

	oldestOverdueSQL postgres.SQLSelect = `SELECT min(ends_at) FROM billing_periods WHERE status = 'open' AND ends_at <= $1`

	// collectSQL moves the unpaid invoices billing made to collecting once
	// their due date is $2 behind $1; the time of the change is the moment
	// it became due, so a late run writes what a punctual one would.
	collectSQL postgres.SQLUpdate = `UPDATE invoices i SET status = 'collecting', updated_at = greatest(i.updated_at, i.due_date + $2::interval)
FROM billing_periods p
WHERE p.invoice_id = i.id AND p.status = 'finalized' AND i.status = 'unpaid' AND i.deleted_at IS NULL
	AND i.due_date + $2::interval <= $1
RETURNING i.id, i.organization_id`

	setInvoiceStatusSQL postgres.SQLUpdate = `UPDATE invoices SET status = $3, updated_at = greatest(updated_at, $4)
WHERE id = $1 AND status = $2 AND deleted_at IS NULL`
)

// invoiceStatusSQL reads a visible invoice's status and organization FOR
// UPDATE (pginvoicing.VisibleStatuses).
var invoiceStatusSQL = postgres.SQLSelect(`SELECT status, organization_id FROM invoices
WHERE id = $1 AND deleted_at IS NULL AND status IN (` + pginvoicing.VisibleStatuses + `)
FOR UPDATE`)

func scanOpenPeriod(rows *sql.Rows) (billingports.OpenPeriod, error) {
	var p billingports.OpenPeriod
	err := rows.Scan(&p.OrganizationID, &p.Period.Start, &p.Period.End, &p.InvoiceID)
	return p, err
}

func (r *PeriodRepository) one(ctx context.Context, q postgres.Statement, args ...any) (billingports.OpenPeriod, error) {
	var p billingports.OpenPeriod
	found := false
	err := r.run.Query(ctx, q, func(rows *sql.Rows) error {
		var err error
		p, err = scanOpenPeriod(rows)
		found = true
		return err
	}, args...)
	if err != nil {
		return p, postgres.DBErr(err)
	}
	if !found {
		return p, domain.ErrNotFound
	}
	return p, nil
}

// Start opens the organization's first period or moves the open one's
// start back while nothing was finalized.
func (r *PeriodRepository) Start(ctx context.Context, organizationID string, start, end time.Time, invoiceID string) (billingports.OpenPeriod, error) {
	if _, err := r.run.Exec(ctx, startPeriodSQL, organizationID, start, end, invoiceID); err != nil {
		return billingports.OpenPeriod{}, postgres.DBErr(err)
	}
	if _, err := r.run.Exec(ctx, dropStaleNextSQL, organizationID); err != nil {
		return billingports.OpenPeriod{}, postgres.DBErr(err)
	}
	return r.LockOpen(ctx, organizationID)
}

// LockBilling takes the organizations' billing locks exclusively.
func (r *PeriodRepository) LockBilling(ctx context.Context, organizationIDs []string) error {
	return r.run.Lock(ctx, lockBillingSQL, postgres.Array(organizationIDs))
}

// LockOpen takes the organization's billing lock, then reads the open
// period FOR UPDATE: under the lock no finalization of it is under way,
// so the statement's snapshot holds its open period.
func (r *PeriodRepository) LockOpen(ctx context.Context, organizationID string) (billingports.OpenPeriod, error) {
	if err := r.LockBilling(ctx, []string{organizationID}); err != nil {
		return billingports.OpenPeriod{}, err
	}
	return r.one(ctx, lockOpenPeriodSQL, organizationID)
}

// lockOpenManySQL locks the open periods of the organizations $1 in the
// organizations' order.
const lockOpenManySQL postgres.SQLSelect = `SELECT organization_id, starts_at, ends_at, invoice_id FROM billing_periods
WHERE status = 'open' AND organization_id = ANY($1::text[]) ORDER BY organization_id FOR UPDATE`

// TryLockBilling takes the billing locks of the organizations that are
// free now and returns those organizations; it never waits.
func (r *PeriodRepository) TryLockBilling(ctx context.Context, organizationIDs []string) ([]string, error) {
	var locked []string
	err := r.run.Query(ctx, tryLockBillingSQL, func(rows *sql.Rows) error {
		var o string
		err := rows.Scan(&o)
		locked = append(locked, o)
		return err
	}, postgres.Array(organizationIDs))
	return locked, postgres.DBErr(err)
}

// LockOpenMany takes the billing locks of the organizations that are free
// now, then locks their open periods.
func (r *PeriodRepository) LockOpenMany(ctx context.Context, organizationIDs []string) ([]billingports.OpenPeriod, error) {
	locked, err := r.TryLockBilling(ctx, organizationIDs)
	if err != nil || len(locked) == 0 {
		return nil, err
	}
	var out []billingports.OpenPeriod
	err = r.run.Query(ctx, lockOpenManySQL, func(rows *sql.Rows) error {
		p, err := scanOpenPeriod(rows)
		out = append(out, p)
		return err
	}, postgres.Array(locked))
	return out, postgres.DBErr(err)
}

// Billed lists the organizations that have an open period, in order: those
// a run accrues.
func (r *PeriodRepository) Billed(ctx context.Context) ([]string, error) {
	var out []string
	err := r.run.Query(ctx, billedSQL, func(rows *sql.Rows) error {
		var o string
		err := rows.Scan(&o)
		out = append(out, o)
		return err
	})
	return out, postgres.DBErr(err)
}

const billedSQL postgres.SQLSelect = `SELECT organization_id FROM billing_periods WHERE status = 'open' ORDER BY organization_id`

const (
	// nextPeriodSQL opens, ahead, the period after the organization $1's
	// open period, from $2 (its end) to $3, as 'next': the new month
	// during the open one's grace, shown by the preview as accumulating
	// (the charges belong to it by their time already). Its invoice ID is
	// kept when it becomes the open period.
	nextPeriodSQL postgres.SQLInsert = `INSERT INTO billing_periods (organization_id, starts_at, ends_at, invoice_id, status)
VALUES ($1, $2, $3, $4, 'next') ON CONFLICT (organization_id, starts_at) DO NOTHING`
	readNextPeriodSQL postgres.SQLSelect = `SELECT organization_id, starts_at, ends_at, invoice_id FROM billing_periods
WHERE organization_id = $1 AND starts_at = $2 AND status = 'next'`
	// dropStaleNextSQL removes a period opened ahead that no longer
	// follows the open one (a card dated back moved the open period).
	dropStaleNextSQL postgres.SQLDelete = `DELETE FROM billing_periods n WHERE n.organization_id = $1 AND n.status = 'next'
	AND n.starts_at <> (SELECT o.ends_at FROM billing_periods o WHERE o.organization_id = $1 AND o.status = 'open')`
)

// StartNext opens the period after the open period p ahead, until end,
// unless it is open ahead already, and returns it.
func (r *PeriodRepository) StartNext(ctx context.Context, p billingports.OpenPeriod, end time.Time, invoiceID string) (billingports.OpenPeriod, error) {
	if _, err := r.run.Exec(ctx, nextPeriodSQL, p.OrganizationID, p.Period.End, end, invoiceID); err != nil {
		return billingports.OpenPeriod{}, postgres.DBErr(err)
	}
	return r.one(ctx, readNextPeriodSQL, p.OrganizationID, p.Period.End)
}

// closedUntilSQL is the start of the organization's open period when one
// of its periods was finalized (no row otherwise).
const closedUntilSQL postgres.SQLSelect = `SELECT p.starts_at FROM billing_periods p
WHERE p.organization_id = $1 AND p.status = 'open'
	AND EXISTS (SELECT 1 FROM billing_periods f WHERE f.organization_id = $1 AND f.status = 'finalized')`

// ClosedUntil is the start of the open period once a period before it was
// finalized; zero when none was (before its first period nothing of the
// organization is billed, so nothing is closed) or it has no period at all.
// It takes the organization's billing lock shared first, so the answer
// holds until the caller's transaction ends.
func (r *PeriodRepository) ClosedUntil(ctx context.Context, organizationID string) (time.Time, error) {
	if err := r.run.Lock(ctx, shareBillingSQL, organizationID); err != nil {
		return time.Time{}, err
	}
	var until time.Time
	err := r.run.Query(ctx, closedUntilSQL, func(rows *sql.Rows) error { return rows.Scan(&until) }, organizationID)
	return until, postgres.DBErr(err)
}

// PeriodClosed reports whether at lies in a closed period of the
// organization: receipts and services dated so are refused (422
// period_closed).
func (r *PeriodRepository) PeriodClosed(ctx context.Context, organizationID string, at time.Time) (bool, error) {
	until, err := r.ClosedUntil(ctx, organizationID)
	return err == nil && at.Before(until), err
}

// carriedForwardSQL reads the credit each window's organization carries forward,
// numbered by the window's position.
const carriedForwardSQL postgres.SQLSelect = `SELECT w.n, a.credit_forward
FROM unnest($1::text[]) WITH ORDINALITY AS w(organization_id, n)
JOIN billing_accounts a ON a.organization_id = w.organization_id`

// Credits reads the credits the windows' organizations carry forward.
func (r *PeriodRepository) Credits(ctx context.Context, windows []billingports.Window) ([]int64, error) {
	orgs, _, _ := windowArrays(windows)
	out := make([]int64, len(windows))
	err := r.run.Query(ctx, carriedForwardSQL, func(rows *sql.Rows) error {
		var n int
		var c int64
		if err := rows.Scan(&n, &c); err != nil {
			return err
		}
		out[n-1] = c
		return nil
	}, orgs)
	return out, postgres.DBErr(err)
}

// offboardSQL records an organization's off-boarding at $2; a close whose
// time is earlier than the one stored never moves it back.
const offboardSQL postgres.SQLInsert = `INSERT INTO billing_accounts AS a (organization_id, offboarded_at) VALUES ($1, $2)
ON CONFLICT (organization_id) DO UPDATE SET offboarded_at = greatest(a.offboarded_at, EXCLUDED.offboarded_at)`

// Offboard records that billing close off-boarded the organization at at.
func (r *PeriodRepository) Offboard(ctx context.Context, organizationID string, at time.Time) error {
	_, err := r.run.Exec(ctx, offboardSQL, organizationID, at)
	return postgres.DBErr(err)
}

// Due lists the open periods that ended by endedBy, oldest first.
func (r *PeriodRepository) Due(ctx context.Context, endedBy time.Time) ([]billingports.OpenPeriod, error) {
	var out []billingports.OpenPeriod
	err := r.run.Query(ctx, duePeriodsSQL, func(rows *sql.Rows) error {
		p, err := scanOpenPeriod(rows)
		out = append(out, p)
		return err
	}, endedBy)
	return out, postgres.DBErr(err)
}

// OldestOverdue is the end of the oldest open period that ended by endedBy.
func (r *PeriodRepository) OldestOverdue(ctx context.Context, endedBy time.Time) (time.Time, error) {
	var oldest sql.NullTime
	err := r.run.Query(ctx, oldestOverdueSQL, func(rows *sql.Rows) error { return rows.Scan(&oldest) }, endedBy)
	return oldest.Time, postgres.DBErr(err)
}

// Collect moves the unpaid invoices billing made, due `after` before now,
// to collecting.
func (r *PeriodRepository) Collect(ctx context.Context, now time.Time, after time.Duration) ([]billingports.InvoiceRef, error) {
	var refs []billingports.InvoiceRef
	err := r.run.Query(ctx, collectSQL, func(rows *sql.Rows) error {
		var ref billingports.InvoiceRef
		err := rows.Scan(&ref.ID, &ref.OrganizationID)
		refs = append(refs, ref)
		return err
	}, now, fmt.Sprintf("%d microseconds", after.Microseconds()))
	return refs, postgres.DBErr(err)
}

// Status reads a visible invoice's status and organization FOR UPDATE.
func (r *PeriodRepository) Status(ctx context.Context, invoiceID string) (status, organizationID string, err error) {
	err = r.run.Query(ctx, invoiceStatusSQL, func(rows *sql.Rows) error { return rows.Scan(&status, &organizationID) }, invoiceID)
	if err != nil {
		return "", "", postgres.DBErr(err)
	}
	if status == "" {
		return "", "", domain.ErrNotFound
	}
	return status, organizationID, nil
}

// SetStatus moves an invoice from one status to another.
func (r *PeriodRepository) SetStatus(ctx context.Context, invoiceID string, from, to string, now time.Time) error {
	n, err := r.run.Exec(ctx, setInvoiceStatusSQL, invoiceID, from, to, now)
	if err != nil {
		return postgres.DBErr(err)
	}
	if n != 1 {
		return fmt.Errorf("invoice %s is no longer %s: %w", invoiceID, from, domain.ErrConflict)
	}
	return nil
}
