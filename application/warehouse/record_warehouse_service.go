package warehouse

import (
	"context"
	"fmt"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/domain/warehouse"
	"github.com/acme3pl/fulfillment/ports"
	warehouseports "github.com/acme3pl/fulfillment/ports/warehouse"
)

// RecordWarehouseService reports a service the token's warehouse performed
// for an organization: the domain's report of it.
type RecordWarehouseService warehouse.ServiceReport

// SpanAttributes implements Attributer.
func (c RecordWarehouseService) SpanAttributes() []attribute.KeyValue {
	return application.OrganizationAttributes(c.OrganizationID, attribute.String("warehouse.id", c.WarehouseID),
		attribute.String("warehouse.reference", c.Reference), attribute.String("warehouse.service", c.Service))
}

// ServiceResult is the service recorded.
type ServiceResult = Recorded[*warehouse.ServiceRecord]

// RecordWarehouseServiceHandler records services.
type RecordWarehouseServiceHandler struct{ reporting }

// NewRecordWarehouseServiceHandler builds the handler.
func NewRecordWarehouseServiceHandler(uow ports.UnitOfWork[warehouseports.Repositories], clock ports.Clock, ids ports.IDGenerator, billing warehouseports.ReportBilling) *RecordWarehouseServiceHandler {
	return &RecordWarehouseServiceHandler{reporting{uow: uow, clock: clock, ids: ids, billing: billing}}
}

// Handle validates the service before any transaction (400s, in the order
// of warehouse.NewServiceRecord), then, in one transaction: the warehouse must
// serve the organization (422 invalid_warehouse); the service is stored
// unless the warehouse has one under its reference — then the same content
// is a retry (the first service, nothing written) and other content 409
// reference_conflict. Under the organization's billing lock, a new
// service must not be dated inside a closed period (422 period_closed;
// one sent without its time raced a close and is dated after it instead)
// and must be on the organization's rate card in force when it was
// performed (422 unknown_service), read under that lock so that no card
// set meanwhile changes the answer; its charge is written with it.
func (h *RecordWarehouseServiceHandler) Handle(ctx context.Context, c RecordWarehouseService) (ServiceResult, error) {
	service, err := warehouse.NewServiceRecord(h.ids.NewID("svc"), h.clock.Now(), warehouse.ServiceReport(c))
	if err != nil {
		return ServiceResult{}, err
	}
	return recordReport(ctx, h.uow, "service", service, nil,
		func(ctx context.Context, r warehouseports.Repositories, service *warehouse.ServiceRecord) (*warehouse.ServiceRecord, bool, error) {
			return r.WarehouseServices.Create(ctx, service)
		},
		func(ctx context.Context, r warehouseports.Repositories) error {
			// The billing lock first (checkPeriod: an undated service that
			// raced a close is dated after it), then the card in force at
			// the service's time: no card change can come between the check
			// and the charge (docs/billing.md, "One lock order").
			if err := checkPeriod(ctx, h.reporting, r, service, func(time.Time) error {
				return r.WarehouseServices.Redate(ctx, service)
			}); err != nil {
				return err
			}
			if err := h.billing.CheckServiceOffered(ctx, r, c.OrganizationID, service.Service(), service.PerformedAt()); err != nil {
				return err
			}
			// Billing: the service's charge (one statement). A service has no
			// event of its own.
			if err := h.billing.ChargeService(ctx, r, service); err != nil {
				return fmt.Errorf("charge service: %w", err)
			}
			return nil
		})
}
