package access

import (
	"context"

	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/domain/audit"
	"github.com/acme3pl/fulfillment/ports"
	accessports "github.com/acme3pl/fulfillment/ports/access"
)

// RevokeAPIKey asks to revoke an API key (`fulfillment apikey revoke`):
// from then on it is refused, within the verifier's cache time. Its JSON is
// the audit record's input.
type RevokeAPIKey struct {
	KeyID string      `json:"keyId"`
	Actor audit.Actor `json:"-"` // who revokes it (docs/audit.md)
}

// RevokeAPIKeyHandler revokes API keys.
type RevokeAPIKeyHandler struct {
	audit *application.Auditor[accessports.Repositories]
}

// NewRevokeAPIKeyHandler builds the handler.
func NewRevokeAPIKeyHandler(uow ports.UnitOfWork[accessports.Repositories], clock ports.Clock, ids ports.IDGenerator) *RevokeAPIKeyHandler {
	return &RevokeAPIKeyHandler{audit: application.NewAuditor(uow, clock, ids)}
}

// Handle revokes the key; revoking it again keeps the first time (its
// audit record: unchanged). An unknown key is domain.ErrNotFound. The
// record names the key's organization.
func (h *RevokeAPIKeyHandler) Handle(ctx context.Context, c RevokeAPIKey) (struct{}, error) {
	op := application.Operation{Actor: c.Actor, Action: audit.APIKeysRevoke, Input: c}
	return struct{}{}, h.audit.Do(ctx, op, func(ctx context.Context, r accessports.Repositories, rec *audit.Record) error {
		was, err := r.APIKeys.Revoke(ctx, c.KeyID)
		if err != nil {
			return err
		}
		rec.OrganizationID = was.OrganizationID
		if was.RevokedAt != nil {
			rec.Outcome = audit.Unchanged
		}
		return nil
	})
}
