package ports

import (
	"context"

	"github.com/acme3pl/fulfillment/domain"
)

// ShipmentRepository reads and writes shipment aggregates with their lines.
// Every read is scoped to one organization: another organization's shipment
// is domain.ErrNotFound.
type ShipmentRepository interface {
	// Create stores a new shipment with its lines.
	Create(ctx context.Context, s *domain.Shipment) error
	// Update stores the state of an existing shipment (status and times).
	Update(ctx context.Context, s *domain.Shipment) error
	// Get returns the organization's shipment, or domain.ErrNotFound.
	Get(ctx context.Context, organizationID, id string) (*domain.Shipment, error)
	// GetForUpdate is Get with the shipment locked until the unit of work
	// ends: state changes of one shipment (submit, cancel) are serialised.
	// It is only meaningful inside UnitOfWork.Do.
	GetForUpdate(ctx context.Context, organizationID, id string) (*domain.Shipment, error)
	// List returns one page of the organization's shipments matching
	// filter, newest first (created at, then ID, both descending), and
	// whether more follow.
	List(ctx context.Context, organizationID string, filter ShipmentFilter, page Page) (ss []*domain.Shipment, more bool, err error)
}

// ShipmentFilter narrows a shipment list; zero fields do not filter.
type ShipmentFilter struct {
	Status domain.ShipmentStatus
}
