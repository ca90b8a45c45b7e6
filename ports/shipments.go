package ports

import (
	"context"

	"github.com/acme3pl/fulfillment/domain"
)

// ShipmentRepository reads and writes shipment aggregates with their lines.
type ShipmentRepository interface {
	// Create stores a new shipment with its lines.
	Create(ctx context.Context, s *domain.Shipment) error
	// Update stores the state of an existing shipment (status and times).
	Update(ctx context.Context, s *domain.Shipment) error
	// Get returns the organization's shipment, or domain.ErrNotFound.
	Get(ctx context.Context, organizationID, id string) (*domain.Shipment, error)
}
