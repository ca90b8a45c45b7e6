package billing

import (
	"context"

	"go.opentelemetry.io/otel/attribute"

	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/domain/billing"
)

// GetRateCard asks for the organization's rate card in force now: the
// console shows it beside a card about to be set. domain.ErrNotFound when
// it has none.
type GetRateCard struct {
	OrganizationID string
}

// SpanAttributes names the organization on the use case's span.
func (q GetRateCard) SpanAttributes() []attribute.KeyValue {
	return application.OrganizationAttributes(q.OrganizationID)
}

// NewGetRateCardHandler builds the handler.
func NewGetRateCardHandler(d Deps) application.HandlerFunc[GetRateCard, *billing.RateCard] {
	return func(ctx context.Context, q GetRateCard) (*billing.RateCard, error) {
		return d.Repos.RateCards.InForce(ctx, q.OrganizationID, d.Clock.Now())
	}
}
