package domain

import (
	"slices"
	"time"
)

// APIKey is a stored API key: never its secret, only the hash of it.
type APIKey struct {
	ID             string
	OrganizationID string
	Name           string
	Environment    Environment
	Prefix         string // the first characters of the key, for people to recognise it
	Hash           []byte // SHA-256 of the whole key
	Scopes         []Scope
	CreatedAt      time.Time
	RevokedAt      *time.Time
}

// Has reports whether the key carries scope s.
func (k APIKey) Has(s Scope) bool { return slices.Contains(k.Scopes, s) }

// WebhookSecret is an organization's shared secret for storefront webhook
// signatures.
type WebhookSecret struct {
	OrganizationID string
	Secret         string
}
