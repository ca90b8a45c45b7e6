package billing

import (
	"context"
	"time"

	"github.com/acme3pl/fulfillment/domain/billing"
	"github.com/acme3pl/fulfillment/domain/invoicing"
	"github.com/acme3pl/fulfillment/ports"
	invoicingports "github.com/acme3pl/fulfillment/ports/invoicing"
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
	Minimums(ctx context.Context, windows []Window) ([]int64, error)
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
	// CatchUp accrues every fact of the organizations' open periods that
	// has no charge yet, reading the facts from the previous catch-up's
	// watermark on, then moves the watermark to through (now less
	// BILLING_GRACE: a fact's own path accrues it; the catch-up looks at
	// the last grace's facts again, as a safety net). The caller holds the
	// organizations' billing locks exclusively.
	CatchUp(ctx context.Context, organizationIDs []string, through time.Time) (map[billing.Fee]int, error)
	// AccrueStorage accrues the days of storage of the organizations up
	// to through (in the billing time zone) not accrued yet, from the
	// stock ledger, under their billing locks taken exclusively.
	AccrueStorage(ctx context.Context, organizationIDs []string, through billing.Date) (map[billing.Fee]int, error)
	// Reprice sets the open charges of the organization's facts from
	// `from` on (not the operator's, not a late fact's: its fact happened
	// before the open period) to the prices of the cards in force at their
	// times, in place, storage days included; days of storage and facts
	// from `from` on without a charge yet (no card was in force at their
	// time) are left to the storage accrual and the catch-up that follow.
	Reprice(ctx context.Context, organizationID string, from time.Time) error
	// ServicesOffCard counts, by code, the organization's services of its
	// open period from `from` on whose code the card in force at their
	// time does not offer.
	ServicesOffCard(ctx context.Context, organizationID string, from time.Time) ([]ServiceUse, error)
	// AddOperatorCharge records an operator's charge or credit once per
	// (organization, reference): false when the reference exists already.
	AddOperatorCharge(ctx context.Context, c OperatorCharge) (bool, error)
	// OfInvoice calls each, in occurredAt order then ID, for the charges
	// behind the invoice of one of the organization's billing periods
	// (finalized or open; a fixture's invoice has none): the page's window
	// of them (Take 0: every one, streamed), and reports whether more
	// follow the page. Charges priced at 0 make no line and are left out.
	OfInvoice(ctx context.Context, organizationID, invoiceID string, page ports.Page, each func(invoicingports.InvoiceCharge) error) (more bool, err error)
	// Sums returns, for each window, the sums by line of the organization's
	// charges dated in it, in one statement. A charge belongs to the period
	// that holds its time: under the open periods' locks, these are what
	// finalizing them bills (and what a preview shows).
	Sums(ctx context.Context, windows []Window) ([][]billing.Sum, error)
	// OperatorCharge reads the operator's charge recorded under the
	// organization's reference (its content, as AddOperatorCharge stored
	// it); domain.ErrNotFound when there is none.
	OperatorCharge(ctx context.Context, organizationID, reference string) (OperatorCharge, error)
}

// ServiceUse is how many services of a code.
type ServiceUse struct {
	Code  string
	Count int
}

// Window is an organization's charges from Start to before End: an
// open period, ending at its end or at a close.
type Window struct {
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
	Invoice *invoicing.Invoice
}

// Finalization ends an open period at End, at the instant At, writes its
// Invoice when it is not nil, opens the next period [End, NextEnd) with
// NextInvoiceID, and leaves the organization CreditForward to bring to
// its next invoice.
type Finalization struct {
	Period        OpenPeriod
	End, At       time.Time
	Invoice       *NewInvoice
	NextEnd       time.Time
	NextInvoiceID string
	CreditForward int64
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

// PeriodRepository keeps organizations' billing periods and writes
// their invoices when they are finalized.
type PeriodRepository interface {
	// Start opens the organization's first period when it has none, or
	// moves the start of its open period back to start when no period was
	// ever finalized; it returns the open period.
	Start(ctx context.Context, organizationID string, start, end time.Time, invoiceID string) (OpenPeriod, error)
	// LockBilling takes the billing locks of the organizations
	// exclusively, in one order, until the transaction ends: the lock that
	// every finalization, storage accrual and repricing holds, and that
	// every fact's accrual holds shared (docs/billing.md, "One lock
	// order").
	LockBilling(ctx context.Context, organizationIDs []string) error
	// LockOpen takes the organization's billing lock exclusively, then
	// reads its open period FOR UPDATE; domain.ErrNotFound when it has
	// none.
	LockOpen(ctx context.Context, organizationID string) (OpenPeriod, error)
	// TryLockBilling takes, exclusively, the billing locks of those of the
	// organizations that are free now, and returns them; it never waits
	// (a batch holding some organizations' locks never waits for
	// another's).
	TryLockBilling(ctx context.Context, organizationIDs []string) ([]string, error)
	// LockOpenMany takes the billing locks of those of the organizations
	// that are free now (TryLockBilling) and locks their open periods FOR
	// UPDATE: the batch of a run's finalizations. It returns the periods
	// still open once locked; an organization left out was busy or has
	// none.
	LockOpenMany(ctx context.Context, organizationIDs []string) ([]OpenPeriod, error)
	// Billed lists the organizations that have an open period.
	Billed(ctx context.Context) ([]string, error)
	// StartNext opens, ahead, the period that follows the open period p,
	// from p's end to end, unless it is open ahead already, and returns
	// it: the new month while p is in its grace. It becomes the open
	// period, with its invoice ID, when p is finalized.
	StartNext(ctx context.Context, p OpenPeriod, end time.Time, invoiceID string) (OpenPeriod, error)
	// LockKeys takes the counter of the year's invoice keys and holds it
	// until the transaction ends: a finalization reads its time after it,
	// so that keys and issue dates go in one order.
	LockKeys(ctx context.Context, year int) error
	// ClosedUntil is the end of the organization's last finalized period,
	// where its open period starts (zero when none was finalized):
	// instants before it are in a closed period. It takes the
	// organization's billing lock shared, so a finalization waits for the
	// transaction that asked, and that transaction for a finalization.
	ClosedUntil(ctx context.Context, organizationID string) (time.Time, error)
	// PeriodClosed reports whether at lies in a closed period of the
	// organization (before ClosedUntil).
	PeriodClosed(ctx context.Context, organizationID string, at time.Time) (bool, error)
	// Due lists the open periods that ended at or before endedBy, oldest
	// first.
	Due(ctx context.Context, endedBy time.Time) ([]OpenPeriod, error)
	// Finalize carries out the finalizations of periods locked FOR UPDATE,
	// in their order: a few statements for the whole batch. Each invoice
	// takes the next key of its finalization year (the year's counter
	// locked until commit); one that totals 0 is paid at once.
	// domain.ErrConflict when a period is no longer open.
	Finalize(ctx context.Context, fs []Finalization) ([]FinalizedInvoice, error)
	// Credits are the credits the windows' organizations carry forward
	// from their last invoices (0 where none).
	Credits(ctx context.Context, windows []Window) ([]int64, error)
	// Offboard records that `billing close` off-boarded the organization
	// at at: no period after it bills a minimum until a card from a
	// later day.
	Offboard(ctx context.Context, organizationID string, at time.Time) error
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
