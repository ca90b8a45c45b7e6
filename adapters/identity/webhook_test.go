package identity

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/domain"
	accessports "github.com/acme3pl/fulfillment/ports/access"
)

// fakeSecrets is a WebhookSecretRepository of fixed secrets that counts its
// reads; down makes every read fail.
type fakeSecrets struct {
	mu      sync.Mutex
	secrets map[string]string
	reads   int
	down    bool
}

func (f *fakeSecrets) WebhookSecret(_ context.Context, org string) (string, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads++
	if f.down {
		return "", false, domain.ErrUnavailable
	}
	s, ok := f.secrets[org]
	return s, ok, nil
}

func (f *fakeSecrets) set(org, secret string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.secrets[org] = secret
}

func hmacOf(secret string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	return base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

func TestVerifyStorefrontSignature(t *testing.T) {
	const secret = "0123456789abcdef-secret"
	body := []byte(`{"id":1}`)
	good := hmacOf(secret, body)
	tests := []struct {
		name, org, sig string
		body           []byte
		wantErr        error
	}{
		{"matching", "org_signed", good, body, nil},
		{"matching, white space around", "org_signed", " " + good + "\n", body, nil},
		{"no secret: no check", "org_plain", "", body, nil},
		{"missing", "org_signed", "", body, accessports.ErrInvalidSignature},
		{"not base64", "org_signed", "%%%", body, accessports.ErrInvalidSignature},
		{"other body", "org_signed", good, []byte(`{"id":2}`), accessports.ErrInvalidSignature},
		{"truncated", "org_signed", good[:20], body, accessports.ErrInvalidSignature},
		{"other secret", "org_signed", hmacOf("another-secret-0123456789", body), body, accessports.ErrInvalidSignature},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := NewWebhookSignatures(&fakeSecrets{secrets: map[string]string{"org_signed": secret}})
			err := w.VerifyStorefrontSignature(context.Background(), tt.org, tt.body, tt.sig)
			if tt.wantErr == nil && err != nil || tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Fatalf("error %v, want %v", err, tt.wantErr)
			}
		})
	}
}

// A secret that cannot be read is not a bad signature: the error says why
// (503 for a database away), and nothing is remembered.
func TestVerifyStorefrontSignatureSecretUnavailable(t *testing.T) {
	repo := &fakeSecrets{secrets: map[string]string{}, down: true}
	w := NewWebhookSignatures(repo)
	for range 2 {
		err := w.VerifyStorefrontSignature(context.Background(), "org_a", []byte(`{}`), "")
		if !errors.Is(err, domain.ErrUnavailable) || errors.Is(err, accessports.ErrInvalidSignature) {
			t.Fatalf("error %v, want ErrUnavailable", err)
		}
	}
	if repo.reads != 2 {
		t.Fatalf("%d reads, want 2 (failures are not cached)", repo.reads)
	}
}

// Secrets, and their absence, are read once per organization and
// WebhookSecretTTL.
func TestVerifyStorefrontSignatureSecretsAreReusedForTheTTL(t *testing.T) {
	repo := &fakeSecrets{secrets: map[string]string{}}
	w := NewWebhookSignatures(repo)
	now := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	w.now = func() time.Time { return now }
	ctx := context.Background()
	unsigned := func() error { return w.VerifyStorefrontSignature(ctx, "org_a", []byte(`{}`), "") }
	if err := unsigned(); err != nil {
		t.Fatal(err)
	}
	repo.set("org_a", "a-new-secret-0123456789")
	now = now.Add(WebhookSecretTTL - time.Millisecond)
	if err := unsigned(); err != nil {
		t.Fatalf("within the TTL the absence of a secret is reused: %v", err)
	}
	now = now.Add(time.Millisecond)
	if err := unsigned(); !errors.Is(err, accessports.ErrInvalidSignature) {
		t.Fatalf("after the TTL the new secret applies: %v", err)
	}
	if repo.reads != 2 {
		t.Fatalf("%d reads, want 2", repo.reads)
	}
}
