package access

import (
	"context"
	"slices"
	"strings"

	"github.com/acme3pl/fulfillment/domain"
)

// ErrInvalidCredentials: a token or key is missing, malformed, expired,
// revoked, of the other environment, or otherwise not to be trusted. The
// reason is kept in the wrapped error for logs, never for responses.
var ErrInvalidCredentials = domain.NewError(domain.KindInvalidCredentials, "invalid credentials")

// ErrInvalidSignature: a storefront delivery's signature is missing or is
// not the HMAC of its body under the organization's webhook secret.
var ErrInvalidSignature = domain.NewError(domain.KindInvalidSignature, "invalid signature")

// InsufficientScopeError: valid credentials that lack scopes the operation
// needs; Missing lists them in the order the operation names them.
type InsufficientScopeError struct {
	Missing []domain.Scope
}

func (e *InsufficientScopeError) Error() string {
	names := make([]string, len(e.Missing))
	for i, s := range e.Missing {
		names[i] = string(s)
	}
	return "lacks scope " + strings.Join(names, " and ")
}

// ErrorKind implements domain.KindedError.
func (e *InsufficientScopeError) ErrorKind() domain.Kind { return domain.KindInsufficientScope }

// Principal is who is calling, and the scopes granted: an organization (its
// tokens and API keys) or a warehouse (its management system's tokens).
// Exactly one of OrganizationID and WarehouseID is set.
type Principal struct {
	OrganizationID string
	WarehouseID    string
	Subject        string // token subject or API key ID
	Scopes         []domain.Scope
}

// Has reports whether the principal holds scope s.
func (p Principal) Has(s domain.Scope) bool { return slices.Contains(p.Scopes, s) }

// TokenVerifier verifies OAuth access tokens (JWTs).
type TokenVerifier interface {
	VerifyAccessToken(ctx context.Context, token string) (Principal, error)
}

// APIKeyVerifier verifies API keys of the order intake.
type APIKeyVerifier interface {
	VerifyAPIKey(ctx context.Context, key string) (Principal, error)
}

// APIKeyGenerator makes the secret part of new API keys.
type APIKeyGenerator interface {
	// GenerateAPIKey makes a key of env: the key itself, shown once and
	// never stored; its hash, which is stored and looked up; and its
	// prefix, stored for people to recognise the key.
	GenerateAPIKey(env domain.Environment) (plain string, hash []byte, prefix string, err error)
}

// APIKeyRepository stores API keys by the hash of their secret.
type APIKeyRepository interface {
	Create(ctx context.Context, k domain.APIKey) error
	// FindByHash returns domain.ErrNotFound when no key has this hash.
	FindByHash(ctx context.Context, hash []byte) (domain.APIKey, error)
	// Revoke marks a key revoked (revoking it again keeps the first time)
	// and returns the key as it was before; domain.ErrNotFound when
	// unknown.
	Revoke(ctx context.Context, id string) (domain.APIKey, error)
	ListByOrganization(ctx context.Context, organizationID string) ([]domain.APIKey, error)
}

// StorefrontSignatureVerifier checks the signature of a storefront
// delivery: the authentication step of the order intake that follows the
// API key.
type StorefrontSignatureVerifier interface {
	// VerifyStorefrontSignature returns nil when the organization has no
	// storefront webhook secret, or when signature (X-Shopify-Hmac-Sha256;
	// "" when absent) is the base64 HMAC-SHA256 of body under it; otherwise
	// an error wrapping ErrInvalidSignature. A failure to read the secret is
	// returned as it is.
	VerifyStorefrontSignature(ctx context.Context, organizationID string, body []byte, signature string) error
}

// WebhookSecretRepository reads the organizations' storefront webhook
// secrets.
type WebhookSecretRepository interface {
	// WebhookSecret returns the organization's secret and whether it has
	// one.
	WebhookSecret(ctx context.Context, organizationID string) (secret string, ok bool, err error)
}
