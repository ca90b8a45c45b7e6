package billing

import (
	"context"
	"fmt"
	"time"

	"github.com/acme3pl/fulfillment/domain/billing"
	"github.com/acme3pl/fulfillment/domain/invoicing"
	"github.com/acme3pl/fulfillment/ports"
)

// ChangeInvoiceStatus moves a finalized invoice to another status
// (`fulfillment invoices status`), along the allowed transitions only.
type ChangeInvoiceStatus struct {
	InvoiceID string
	To        string
}

// ChangeInvoiceStatusHandler answers ChangeInvoiceStatus.
type ChangeInvoiceStatusHandler struct{ d Deps }

// NewChangeInvoiceStatusHandler builds the handler.
func NewChangeInvoiceStatusHandler(d Deps) *ChangeInvoiceStatusHandler {
	return &ChangeInvoiceStatusHandler{d: d}
}

// Handle reads the invoice's status FOR UPDATE, checks the transition and
// writes it with its invoice.status_changed event; it returns the status it
// moved from.
func (h *ChangeInvoiceStatusHandler) Handle(ctx context.Context, c ChangeInvoiceStatus) (invoicing.InvoiceStatus, error) {
	to, err := invoicing.ParseVisibleInvoiceStatus(c.To)
	if err != nil {
		return "", err
	}
	var from invoicing.InvoiceStatus
	err = h.d.UnitOfWork.Do(ctx, func(ctx context.Context, r ports.Repositories) error {
		s, org, err := r.BillingPeriods.Status(ctx, c.InvoiceID)
		if err != nil {
			return err
		}
		from = invoicing.InvoiceStatus(s)
		if err := billing.Move(from, to); err != nil {
			return err
		}
		now := h.d.Clock.Now()
		if err := r.BillingPeriods.SetStatus(ctx, c.InvoiceID, string(from), string(to), now); err != nil {
			return err
		}
		return recordStatusChanged(ctx, r, ports.InvoiceRef{ID: c.InvoiceID, OrganizationID: org}, now)
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
func recordStatusChanged(ctx context.Context, r ports.Repositories, ref ports.InvoiceRef, at time.Time) error {
	inv, err := r.Invoices.Get(ctx, ref.OrganizationID, ref.ID)
	if err != nil {
		return fmt.Errorf("read invoice %s: %w", ref.ID, err)
	}
	return r.Events.Record(ctx, ports.InvoiceEvent(ports.EventInvoiceStatusChanged, inv, at))
}
