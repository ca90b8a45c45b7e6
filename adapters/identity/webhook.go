package identity

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"strings"
	"time"

	accessports "github.com/acme3pl/fulfillment/ports/access"
)

// WebhookSignatures verifies the signatures of storefront deliveries for
// organizations that have a webhook secret (see the package doc).
type WebhookSignatures struct {
	secrets accessports.WebhookSecretRepository
	now     func() time.Time
	cache   *shortCache[string, webhookSecret]
}

// webhookSecret is an organization's secret, or its absence (ok false).
type webhookSecret struct {
	secret string
	ok     bool
}

// WebhookSecretTTL bounds how long a webhook secret, or its absence, is
// used without reading it again: the time a new or changed secret takes to
// take effect.
const WebhookSecretTTL = time.Second

var _ accessports.StorefrontSignatureVerifier = (*WebhookSignatures)(nil)

// NewWebhookSignatures verifies signatures against the secrets of secrets.
func NewWebhookSignatures(secrets accessports.WebhookSecretRepository) *WebhookSignatures {
	return &WebhookSignatures{secrets: secrets, now: time.Now, cache: newShortCache[string, webhookSecret](WebhookSecretTTL)}
}

// VerifyStorefrontSignature implements accessports.StorefrontSignatureVerifier,
// comparing the signatures in constant time.
func (w *WebhookSignatures) VerifyStorefrontSignature(ctx context.Context, organizationID string, body []byte, signature string) error {
	s, err := w.secret(ctx, organizationID)
	if err != nil {
		return fmt.Errorf("load webhook secret: %w", err)
	}
	if !s.ok {
		return nil
	}
	got, err := base64.StdEncoding.DecodeString(strings.TrimSpace(signature))
	if signature == "" || err != nil {
		return fmt.Errorf("storefront signature missing or not base64: %w", accessports.ErrInvalidSignature)
	}
	mac := hmac.New(sha256.New, []byte(s.secret))
	mac.Write(body)
	if !hmac.Equal(got, mac.Sum(nil)) {
		return fmt.Errorf("storefront signature does not match: %w", accessports.ErrInvalidSignature)
	}
	return nil
}

// secret returns the organization's secret, from the cache while fresh.
func (w *WebhookSignatures) secret(ctx context.Context, organizationID string) (webhookSecret, error) {
	now := w.now()
	if s, hit := w.cache.get(organizationID, now); hit {
		return s, nil
	}
	secret, ok, err := w.secrets.WebhookSecret(ctx, organizationID)
	if err != nil {
		return webhookSecret{}, err
	}
	s := webhookSecret{secret: secret, ok: ok}
	w.cache.put(organizationID, s, now)
	return s, nil
}
