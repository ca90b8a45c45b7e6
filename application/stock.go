package application

import (
	"context"
	"time"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/ports"
)

// submitNew submits a new draft and stores it as pending with its
// reservation, inside the caller's unit of work. The order intake and the
// submission of drafts share it, so both reserve alike.
func submitNew(ctx context.Context, r ports.Repositories, s *domain.Shipment, now time.Time) error {
	if err := s.Submit(now); err != nil {
		return err
	}
	if err := r.Inventory.Reserve(ctx, s.Warehouse().ID, s.Kind(), s.Lines()); err != nil {
		return err
	}
	return r.Shipments.Create(ctx, s)
}

// submitStored submits a stored draft: the transition, the reservation and
// the new state, inside the caller's unit of work.
func submitStored(ctx context.Context, r ports.Repositories, s *domain.Shipment, now time.Time) error {
	if err := s.Submit(now); err != nil {
		return err
	}
	if err := r.Inventory.Reserve(ctx, s.Warehouse().ID, s.Kind(), s.Lines()); err != nil {
		return err
	}
	return r.Shipments.Update(ctx, s)
}

// cancelStored cancels a stored shipment and releases its reservation when
// it was pending.
func cancelStored(ctx context.Context, r ports.Repositories, s *domain.Shipment, now time.Time) error {
	releases, err := s.Cancel(now)
	if err != nil {
		return err
	}
	if releases {
		if err := r.Inventory.Release(ctx, s.Warehouse().ID, s.Kind(), s.Lines()); err != nil {
			return err
		}
	}
	return r.Shipments.Update(ctx, s)
}
