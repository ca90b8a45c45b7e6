package ports

import (
	"context"
	"time"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/billing"
)

// RateCardRepository stores organizations' effective-dated rate cards.
type RateCardRepository interface {
	// Set stores card from effectiveAt (the first instant of its
	// effectiveFrom in the billing time zone), replacing a card of the same
	// day.
	Set(ctx context.Context, card *billing.RateCard, effectiveAt, now time.Time) error
	// InForce is the organization's card in force at at; domain.ErrNotFound
	// when none is.
	InForce(ctx context.Context, organizationID string, at time.Time) (*billing.RateCard, error)
	// Minimums are the monthly minimums of the cards in force at each
	// window's last instant (0 where no card is), in one statement.
	Minimums(ctx context.Context, windows []BillingWindow) ([]int64, error)
	// Service is the service of that code on the card in force at at;
	// domain.ErrNotFound when no card is in force or it has no such
	// service (a receiving hook answers 422 unknown_service).
	Service(ctx context.Context, organizationID, code string, at time.Time) (billing.Service, error)
}

// ChargeRepository accrues and reads the charges of billing. Every accrual
// is one statement, at the rate card in force when the fact happened,
// exactly once per (fact, fee) by a unique key, and only into the
// organization's open period; each returns how many charges it inserted,
// by fee.
type ChargeRepository interface {
	// AccrueShipment accrues a shipped shipment's charges (Pick & Pack
	// order and additional units, SPD cartons). The ship use case calls it
	// in its transaction.
	AccrueShipment(ctx context.Context, shipmentID string) (map[billing.Fee]int, error)
	// AccrueReceipt accrues a receipt's charges (units, cartons) and, when
	// the receipt is dated into days whose storage is accrued already,
	// takes that storage back to be accrued again from the ledger.
	AccrueReceipt(ctx context.Context, receiptID string) (map[billing.Fee]int, error)
	// AccrueService accrues a service's charge at its card's price.
	AccrueService(ctx context.Context, serviceID string) (map[billing.Fee]int, error)
	// CatchUp accrues every fact of the organization's open period ("":
	// every organization's) that has no charge yet, reading the facts from
	// the previous catch-up's watermark on, then moves the watermark to
	// through (now less BILLING_GRACE: a fact's own path accrues it; the
	// catch-up looks at the last grace's facts again, as a safety net).
	CatchUp(ctx context.Context, organizationID string, through time.Time) (map[billing.Fee]int, error)
	// AccrueStorage accrues the days of storage up to through (in the
	// billing time zone) not accrued yet, from the stock ledger.
	AccrueStorage(ctx context.Context, organizationID string, through billing.Date) (map[billing.Fee]int, error)
	// Forget deletes the open charges of the organization's facts from
	// `from` on (not the operator's) and takes their storage back, so that
	// the accruals that follow price them at a new card.
	Forget(ctx context.Context, organizationID string, from time.Time) error
	// AddOperatorCharge records an operator's charge or credit once per
	// (organization, reference): false when the reference exists already.
	AddOperatorCharge(ctx context.Context, c OperatorCharge) (bool, error)
	// Sums returns, for each window, the sums by line of the organization's
	// charges dated in it, in one statement. A charge belongs to the period
	// that holds its time: under the open periods' locks, these are what
	// finalizing them bills (and what a preview shows).
	Sums(ctx context.Context, windows []BillingWindow) ([][]billing.Sum, error)
}

// BillingWindow is an organization's charges from Start to before End: an
// open period, ending at its end or at a close.
type BillingWindow struct {
	OrganizationID string
	Start, End     time.Time
}

// OperatorCharge is a charge or credit (negative UnitCost) an operator
// records by hand.
type OperatorCharge struct {
	OrganizationID string
	Reference      string
	Title          string
	Description    string
	QuantityMilli  int64
	UnitCost       int64
	OccurredAt     time.Time
	ForPeriod      string // the closed period's name when OccurredAt lies in one
}

// OpenPeriod is an organization's open billing period.
type OpenPeriod struct {
	OrganizationID string
	Period         billing.Period
	InvoiceID      string
}

// FinalizedInvoice is what finalizing a period wrote: Key is "" when the
// period billed nothing and made no invoice.
type FinalizedInvoice struct {
	OrganizationID string
	InvoiceID      string
	Key            string
	Period         billing.Period
	TotalAmount    int64
	Lines          int
	// Invoice is the invoice as stored and as the API shows it (nil
	// without one): invoice.finalized's data.
	Invoice *domain.Invoice
}

// Finalization ends an open period at End, writes its Invoice when it is
// not nil, and opens the next period [End, NextEnd) with NextInvoiceID.
type Finalization struct {
	Period        OpenPeriod
	End           time.Time
	Invoice       *NewInvoice
	NextEnd       time.Time
	NextInvoiceID string
}

// KeyPlan numbers a batch's invoices from First in Year (docs/billing.md,
// "Numbering"); the zero plan takes their keys from the year's counter.
type KeyPlan struct {
	Year, First int
}

// NewInvoice is a finalized invoice to write.
type NewInvoice struct {
	ID             string
	OrganizationID string
	Name           string
	Notes          string
	DueDate        time.Time
	FinalizedAt    time.Time
	Lines          []billing.Line
	TotalAmount    int64
}

// BillingPeriodRepository keeps organizations' billing periods and writes
// their invoices when they are finalized.
type BillingPeriodRepository interface {
	// Start opens the organization's first period when it has none, or
	// moves the start of its open period back to start when no period was
	// ever finalized; it returns the open period.
	Start(ctx context.Context, organizationID string, start, end time.Time, invoiceID string) (OpenPeriod, error)
	// LockOpen reads the organization's open period FOR UPDATE;
	// domain.ErrNotFound when it has none.
	LockOpen(ctx context.Context, organizationID string) (OpenPeriod, error)
	// LockOpenMany locks the open periods of the organizations FOR UPDATE,
	// in one statement and one order, after the catch-up's lock (a
	// catch-up holds open periods FOR SHARE): the batch of a run's
	// finalizations. It returns the periods still open once locked.
	LockOpenMany(ctx context.Context, organizationIDs []string) ([]OpenPeriod, error)
	// ClosedUntil is the end of the organization's last finalized period,
	// where its open period starts (zero when none was finalized):
	// instants before it are in a closed period. It
	// reads the open period FOR SHARE, so a finalization waits for the
	// transaction that asked, and that transaction for a finalization.
	ClosedUntil(ctx context.Context, organizationID string) (time.Time, error)
	// PeriodClosed reports whether at lies in a closed period of the
	// organization (before ClosedUntil).
	PeriodClosed(ctx context.Context, organizationID string, at time.Time) (bool, error)
	// Due lists the open periods that ended at or before endedBy, oldest
	// first.
	Due(ctx context.Context, endedBy time.Time) ([]OpenPeriod, error)
	// Finalize carries out the finalizations of periods locked FOR UPDATE,
	// in their order: a few statements for the whole batch. With the zero
	// plan each invoice takes the next key of its finalization year (the
	// year's counter locked until commit); with a plan they are numbered
	// from plan.First (all of plan.Year), and ClaimKeys must claim those
	// keys before the commit. domain.ErrConflict when a period is no
	// longer open.
	Finalize(ctx context.Context, fs []Finalization, plan KeyPlan) ([]FinalizedInvoice, error)
	// NextKey is the number the next invoice finalized in the year would
	// take as things stand (nothing locked).
	NextKey(ctx context.Context, year int) (int, error)
	// ClaimKeys moves the year's counter over the n keys from plan.First,
	// and locks it until commit, when the keys before plan.First are the
	// last taken; false when another finalization took keys meanwhile (the
	// transaction must then not commit the invoices numbered by plan).
	ClaimKeys(ctx context.Context, plan KeyPlan, n int) (bool, error)
	// OldestOverdue is the end of the oldest open period that ended at or
	// before endedBy (zero when none).
	OldestOverdue(ctx context.Context, endedBy time.Time) (time.Time, error)
	// Collect moves the unpaid invoices billing made whose due date is
	// `after` or more before now to collecting, and returns their IDs.
	Collect(ctx context.Context, now time.Time, after time.Duration) ([]InvoiceRef, error)
	// SetStatus moves a stored, visible invoice from one status to another
	// when it still holds `from`; domain.ErrNotFound when there is no such
	// invoice, domain.ErrConflict when its status changed meanwhile.
	SetStatus(ctx context.Context, invoiceID string, from, to string, now time.Time) error
	// Status reads a visible invoice's status FOR UPDATE.
	Status(ctx context.Context, invoiceID string) (status, organizationID string, err error)
}

// InvoiceRef names an invoice and its organization.
type InvoiceRef struct {
	ID             string
	OrganizationID string
}
