package billing

import (
	"context"
	"fmt"
	"time"

	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/domain/audit"
	"github.com/acme3pl/fulfillment/domain/billing"
	"github.com/acme3pl/fulfillment/domain/invoicing"
	billingports "github.com/acme3pl/fulfillment/ports/billing"
	eventsports "github.com/acme3pl/fulfillment/ports/events"
	invoicingports "github.com/acme3pl/fulfillment/ports/invoicing"
)

// ChangeInvoiceStatus moves a finalized invoice to another status
// (`fulfillment invoices status`), along the allowed transitions only.
// Its JSON is the audit record's input.
type ChangeInvoiceStatus struct {
	InvoiceID string      `json:"invoiceId"`
	To        string      `json:"to"`
	Actor     audit.Actor `json:"-"` // who moves it (docs/audit.md)
}

// ChangeInvoiceStatusHandler answers ChangeInvoiceStatus.
type ChangeInvoiceStatusHandler struct {
	d     Deps
	audit *application.Auditor[billingports.Repositories]
}

// NewChangeInvoiceStatusHandler builds the handler.
func NewChangeInvoiceStatusHandler(d Deps) *ChangeInvoiceStatusHandler {
	return &ChangeInvoiceStatusHandler{d: d, audit: d.auditor()}
}

// Handle reads the invoice's status FOR UPDATE, checks the transition and
// writes it with its invoice.status_changed event; it returns the status it
// moved from. Its audit record (invoices.status) names the invoice's
// organization once it is read; a move refused is recorded with its code
// (invalid_state, not_found).
func (h *ChangeInvoiceStatusHandler) Handle(ctx context.Context, c ChangeInvoiceStatus) (invoicing.InvoiceStatus, error) {
	var (
		from invoicing.InvoiceStatus
		to   invoicing.InvoiceStatus
	)
	op := application.Operation{Actor: c.Actor, Action: audit.InvoicesStatus, Input: c}
	err := h.audit.Do(ctx, op, func(ctx context.Context, r billingports.Repositories, rec *audit.Record) error {
		var err error
		if to, err = invoicing.ParseVisibleInvoiceStatus(c.To); err != nil {
			return err
		}
		s, org, err := r.BillingPeriods.Status(ctx, c.InvoiceID)
		if err != nil {
			return err
		}
		rec.OrganizationID = org
		from = invoicing.InvoiceStatus(s)
		if err := billing.Move(from, to); err != nil {
			return err
		}
		now := h.d.Clock.Now()
		if err := r.BillingPeriods.SetStatus(ctx, c.InvoiceID, string(from), string(to), now); err != nil {
			return err
		}
		return recordStatusChanged(ctx, r, billingports.InvoiceRef{ID: c.InvoiceID, OrganizationID: org}, now)
	})
	if err != nil {
		return "", err
	}
	h.d.observer().ObserveInvoices(string(to), 1)
	return from, nil
}

// recordStatusChanged writes invoice.status_changed (docs/events.md): the
// invoice as the API shows it after the change, read in the transaction that
// made it.
func recordStatusChanged(ctx context.Context, r billingports.Repositories, ref billingports.InvoiceRef, at time.Time) error {
	inv, err := r.Invoices.Get(ctx, ref.OrganizationID, ref.ID)
	if err != nil {
		return fmt.Errorf("read invoice %s: %w", ref.ID, err)
	}
	return r.Events.Record(ctx, invoicingports.InvoiceEvent(eventsports.EventInvoiceStatusChanged, inv, at))
}
