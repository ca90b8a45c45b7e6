package billing

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/billing"
	"github.com/acme3pl/fulfillment/domain/shipping"
	"github.com/acme3pl/fulfillment/domain/warehouse"
	warehouseports "github.com/acme3pl/fulfillment/ports/warehouse"
)

// ReportBilling is billing's part of the warehouse's reports
// (warehouseports.ReportBilling), run in the report's transaction: a service must be
// a code of the rate card in force when it was performed, a receipt or
// service may not be dated into a closed period, and a new report's
// charges — a receipt's, a service's, a shipped shipment's — accrue in one
// statement after the organization's billing lock, taken shared, so that
// no finalization reads the facts meanwhile (docs/billing.md, "One lock
// order"); they are counted by the Observer.
type ReportBilling struct{ d Deps }

var _ warehouseports.ReportBilling = ReportBilling{}

// NewReportBilling builds billing's part of the warehouse's reports.
func NewReportBilling(d Deps) ReportBilling { return ReportBilling{d: d} }

// CheckServiceOffered refuses a service code the rate card does not hold.
// It reads the card under the organization's billing lock, taken shared
// (as ClosedUntil takes it): no card can be set between this check and the
// service's charge.
func (b ReportBilling) CheckServiceOffered(ctx context.Context, r warehouseports.Repositories, org, code string, at time.Time) error {
	if _, err := r.BillingPeriods.ClosedUntil(ctx, org); err != nil {
		return fmt.Errorf("billing period of %s: %w", org, err)
	}
	_, err := r.RateCards.Service(ctx, org, code, at)
	if errors.Is(err, domain.ErrNotFound) {
		return fmt.Errorf("service %q of %s at %s: %w", code, org, at.Format(time.RFC3339), warehouse.ErrUnknownService)
	}
	if err != nil {
		return fmt.Errorf("rate card of %s: %w", org, err)
	}
	return nil
}

// CheckPeriodOpen refuses a fact dated inside a closed period.
func (b ReportBilling) CheckPeriodOpen(ctx context.Context, r warehouseports.Repositories, org string, at time.Time) error {
	closed, err := r.BillingPeriods.PeriodClosed(ctx, org, at)
	if err != nil {
		return fmt.Errorf("billing period of %s: %w", at.Format(time.RFC3339), err)
	}
	if closed {
		return fmt.Errorf("%s lies in a closed period of %s: %w", at.Format(time.RFC3339), org, warehouse.ErrPeriodClosed)
	}
	return nil
}

// ChargeReceipt accrues a new receipt's charges.
func (b ReportBilling) ChargeReceipt(ctx context.Context, r warehouseports.Repositories, receipt *warehouse.Receipt) error {
	fees, err := r.Charges.AccrueReceipt(ctx, receipt.ID())
	b.d.observeCharges(fees)
	return err
}

// ChargeService accrues a new service's charge: one whose code the card
// in force at its time does not offer (it got no charge) is refused, so an
// accepted service is always on an invoice.
func (b ReportBilling) ChargeService(ctx context.Context, r warehouseports.Repositories, service *warehouse.ServiceRecord) error {
	fees, err := r.Charges.AccrueService(ctx, service.ID())
	if err != nil {
		return err
	}
	b.d.observeCharges(fees)
	if fees[billing.FeeService] == 0 {
		return fmt.Errorf("service %q of %s at %s: %w", service.Service(), service.OrganizationID(),
			service.PerformedAt().Format(time.RFC3339), warehouse.ErrUnknownService)
	}
	return nil
}

// ChargeShipment accrues a shipped shipment's charges.
func (b ReportBilling) ChargeShipment(ctx context.Context, r warehouseports.Repositories, shipped *shipping.Shipment) error {
	fees, err := r.Charges.AccrueShipment(ctx, shipped.ID())
	b.d.observeCharges(fees)
	return err
}
