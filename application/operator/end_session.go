package operator

import (
	"context"
	"fmt"

	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/domain/operator"
	operatorports "github.com/acme3pl/fulfillment/ports/operator"
)

// EndSession ends the session whose ID a request's cookie carries
// (logout).
type EndSession struct {
	ID string
}

// NewEndSessionHandler builds the handler; ending a session that is
// already gone does nothing and is no error.
func NewEndSessionHandler(store operatorports.Sessions) application.HandlerFunc[EndSession, struct{}] {
	return func(ctx context.Context, c EndSession) (struct{}, error) {
		if !operator.WellFormedSecret(c.ID) {
			return struct{}{}, nil
		}
		if _, err := store.EndSession(ctx, operator.HashSecret(c.ID)); err != nil {
			return struct{}{}, fmt.Errorf("end a session: %w", err)
		}
		return struct{}{}, nil
	}
}
