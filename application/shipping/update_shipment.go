package shipping

import (
	"context"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/shipping"
	"github.com/acme3pl/fulfillment/ports"
)

// updateShipment is the transaction of a change of an organization's
// shipment (submit, cancel): change runs on the shipment locked by
// ShipmentRepository.Update, which stores its new state unless change
// fails; then after, when given, in the same transaction and under the
// same lock. An ID of a shape no shipment has is domain.ErrNotFound without
// asking the database.
func updateShipment(ctx context.Context, uow ports.UnitOfWork, org, id string,
	change, after func(ctx context.Context, r ports.Repositories, s *shipping.Shipment) error,
) (*shipping.Shipment, error) {
	if !domain.ValidID(id) {
		return nil, domain.ErrNotFound
	}
	var changed *shipping.Shipment
	err := uow.Do(ctx, func(ctx context.Context, r ports.Repositories) error {
		var err error
		changed, err = r.Shipments.Update(ctx, org, id, func(s *shipping.Shipment) error { return change(ctx, r, s) })
		if err != nil || after == nil {
			return err
		}
		return after(ctx, r, changed)
	})
	if err != nil {
		return nil, err
	}
	return changed, nil
}
