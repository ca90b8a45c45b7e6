package application

import (
	"context"

	"github.com/acme3pl/fulfillment/ports"
)

// RevokeAPIKey asks to revoke an API key (`fulfillment apikey revoke`):
// from then on it is refused, within the verifier's cache time.
type RevokeAPIKey struct {
	KeyID string
}

// RevokeAPIKeyHandler revokes API keys.
type RevokeAPIKeyHandler struct {
	keys ports.APIKeyRepository
}

// NewRevokeAPIKeyHandler builds the handler.
func NewRevokeAPIKeyHandler(keys ports.APIKeyRepository) *RevokeAPIKeyHandler {
	return &RevokeAPIKeyHandler{keys: keys}
}

// Handle revokes the key; revoking it again keeps the first time. An
// unknown key is domain.ErrNotFound.
func (h *RevokeAPIKeyHandler) Handle(ctx context.Context, c RevokeAPIKey) (struct{}, error) {
	return struct{}{}, h.keys.Revoke(ctx, c.KeyID)
}
