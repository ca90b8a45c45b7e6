package application

import (
	"context"
	"fmt"

	"go.opentelemetry.io/otel/attribute"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/audit"
	"github.com/acme3pl/fulfillment/ports"
	accessports "github.com/acme3pl/fulfillment/ports/access"
)

// SetOrganizationLimit sets an organization's own rate limit of the API
// (`fulfillment orgs limit`), or, with Limit nil, gives it the default
// back (`--default`). Every replica applies it within a second
// (docs/rate-limits.md).
type SetOrganizationLimit struct {
	OrganizationID string
	Limit          *domain.RateLimit
	Actor          audit.Actor // who sets it (docs/audit.md)
}

// SpanAttributes implements Attributer.
func (c SetOrganizationLimit) SpanAttributes() []attribute.KeyValue {
	return OrganizationAttributes(c.OrganizationID)
}

// auditInput is the command's arguments: the rate and burst, or default.
func (c SetOrganizationLimit) auditInput() map[string]any {
	if c.Limit == nil {
		return map[string]any{"organizationId": c.OrganizationID, "default": true}
	}
	return map[string]any{"organizationId": c.OrganizationID, "rate": c.Limit.Rate(), "burst": c.Limit.Burst()}
}

// SetOrganizationLimitHandler answers SetOrganizationLimit.
type SetOrganizationLimitHandler struct {
	audit *Auditor[accessports.Repositories]
}

// NewSetOrganizationLimitHandler builds the handler.
func NewSetOrganizationLimitHandler(uow ports.UnitOfWork[accessports.Repositories], clock ports.Clock, ids ports.IDGenerator) *SetOrganizationLimitHandler {
	return &SetOrganizationLimitHandler{audit: NewAuditor(uow, clock, ids)}
}

// Handle writes the limit with its audit record (orgs.limit); an unknown
// organization is domain.ErrNotFound.
func (h *SetOrganizationLimitHandler) Handle(ctx context.Context, c SetOrganizationLimit) (struct{}, error) {
	op := Operation{Actor: c.Actor, Action: audit.OrgsLimit, OrganizationID: c.OrganizationID, Input: c.auditInput()}
	return struct{}{}, h.audit.Do(ctx, op, func(ctx context.Context, r accessports.Repositories, _ *audit.Record) error {
		var err error
		if c.Limit == nil {
			err = r.RateLimits.ClearRateLimit(ctx, c.OrganizationID)
		} else {
			err = r.RateLimits.SetRateLimit(ctx, c.OrganizationID, *c.Limit)
		}
		if err != nil {
			return fmt.Errorf("organization %q: %w", c.OrganizationID, err)
		}
		return nil
	})
}
