package warehouse

import (
	"context"
	"time"

	"github.com/acme3pl/fulfillment/domain/shipping"
	"github.com/acme3pl/fulfillment/domain/warehouse"
)

// ReceiptRepository keeps the goods a warehouse received.
type ReceiptRepository interface {
	// Create stores a new receipt and its lines, unless the warehouse has a
	// receipt under the same reference already: then it writes nothing and
	// returns that one (created false). The unique (warehouse, reference)
	// is the fact: of two creations racing with one reference, the second
	// waits for the first's transaction and finds its receipt.
	Create(ctx context.Context, r *warehouse.Receipt) (stored *warehouse.Receipt, created bool, err error)
	// Redate writes the new time of a receipt created in this transaction
	// (warehouse.Receipt's DateAfter): its receivedAt and createdAt, and
	// the time of its movements, which were dated was.
	Redate(ctx context.Context, r *warehouse.Receipt, was time.Time) error
}

// ServiceRepository keeps the services a warehouse performed.
type ServiceRepository interface {
	// Create stores a new service record, unless the warehouse has one under
	// the same reference already: then it writes nothing and returns that
	// one (created false), as ReceiptRepository.Create does.
	Create(ctx context.Context, s *warehouse.ServiceRecord) (stored *warehouse.ServiceRecord, created bool, err error)
	// Redate writes the new time of a service created in this transaction
	// (warehouse.ServiceRecord's DateAfter): its performedAt and createdAt.
	Redate(ctx context.Context, s *warehouse.ServiceRecord) error
}

// ReportBilling is billing's part of the warehouse's reports (receipts,
// services, ships), which their use cases call in the report's
// transaction, with its repositories, so that what it writes commits with
// the report or not at all. application/billing implements it.
type ReportBilling interface {
	// CheckServiceOffered refuses a code that is not a service of the
	// organization's rate card in force at at (warehouse.ErrUnknownService).
	CheckServiceOffered(ctx context.Context, r Repositories, organizationID, code string, at time.Time) error
	// CheckPeriodOpen refuses a fact dated inside a closed billing period of
	// the organization (warehouse.ErrPeriodClosed); the open period is then
	// held FOR SHARE until the report commits, so a finalization waits.
	CheckPeriodOpen(ctx context.Context, r Repositories, organizationID string, at time.Time) error
	// ChargeReceipt, ChargeService and ChargeShipment accrue a new report's
	// charges (one statement each); never for a retry or a replayed ship.
	ChargeReceipt(ctx context.Context, r Repositories, receipt *warehouse.Receipt) error
	ChargeService(ctx context.Context, r Repositories, service *warehouse.ServiceRecord) error
	ChargeShipment(ctx context.Context, r Repositories, shipped *shipping.Shipment) error
}
