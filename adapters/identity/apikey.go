package identity

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/acme3pl/fulfillment/domain"
	accessports "github.com/acme3pl/fulfillment/ports/access"
)

// The prefixes that carry a key's environment: one deployment serves one
// environment, and a key of the other is refused.
const (
	SandboxKeyPrefix    = "fk_test_"
	ProductionKeyPrefix = "fk_live_"
)

const (
	// apiKeySecretLen is the length of the random part of generated keys:
	// 40 characters of a 62-letter alphabet, log2(62^40) ≈ 238 bits.
	apiKeySecretLen = 40
	// minAPIKeySecretLen is the shortest random part accepted (the key format of docs/decisions.md),
	// so that keys made elsewhere and seeded are accepted too.
	minAPIKeySecretLen = 32
	// maxAPIKeySecretLen bounds what is hashed and looked up; far above any
	// real key.
	maxAPIKeySecretLen = 512
	// displayedSecretChars of the random part are kept in the stored prefix
	// so that people can tell their keys apart (~24 of 238 bits: harmless).
	displayedSecretChars = 4
)

const apiKeyAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// keyPrefix returns the prefix of env's keys.
func keyPrefix(env domain.Environment) (string, error) {
	switch env {
	case domain.Sandbox:
		return SandboxKeyPrefix, nil
	case domain.Production:
		return ProductionKeyPrefix, nil
	}
	return "", fmt.Errorf("unknown environment %q", env)
}

// GenerateAPIKey makes a new key of env. plain is shown to the user once and
// never stored; hash (HashAPIKey(plain)) is what is stored and looked up;
// prefix (APIKeyPrefix(plain)) is stored for people to recognise the key.
func GenerateAPIKey(env domain.Environment) (plain string, hash []byte, prefix string, err error) {
	p, err := keyPrefix(env)
	if err != nil {
		return "", nil, "", fmt.Errorf("generate api key: %w", err)
	}
	secret, err := randomAlphanumeric(apiKeySecretLen)
	if err != nil {
		return "", nil, "", fmt.Errorf("generate api key: %w", err)
	}
	plain = p + secret
	return plain, HashAPIKey(plain), APIKeyPrefix(plain), nil
}

// APIKeyGenerator implements accessports.APIKeyGenerator with GenerateAPIKey.
type APIKeyGenerator struct{}

var _ accessports.APIKeyGenerator = APIKeyGenerator{}

// GenerateAPIKey implements accessports.APIKeyGenerator.
func (APIKeyGenerator) GenerateAPIKey(env domain.Environment) (plain string, hash []byte, prefix string, err error) {
	return GenerateAPIKey(env)
}

// randomAlphanumeric draws n characters uniformly from apiKeyAlphabet.
// Rejection sampling: a byte is used only when below 248 = 4×62, so that
// b%62 hits every letter with the same probability (plain b%62 over 0..255
// would favour the first 8 letters by 25%).
func randomAlphanumeric(n int) (string, error) {
	const limit = 256 - 256%len(apiKeyAlphabet) // 248
	out := make([]byte, 0, n)
	buf := make([]byte, n+n/4) // ~3% of bytes are rejected; refill when short
	for len(out) < n {
		if _, err := rand.Read(buf); err != nil {
			return "", fmt.Errorf("random: %w", err)
		}
		for _, b := range buf {
			if int(b) >= limit {
				continue
			}
			out = append(out, apiKeyAlphabet[int(b)%len(apiKeyAlphabet)])
			if len(out) == n {
				break
			}
		}
	}
	return string(out), nil
}

// HashAPIKey is the SHA-256 of the whole key, the form in which keys are
// stored and looked up. A fast, unsalted hash is right here, unlike for
// passwords: a generated key has ~238 bits of entropy (and an accepted one at
// least ~190), so no dictionary or brute force can invert the hash, and a
// deterministic hash is what allows a lookup by hash with a unique index.
// A slow KDF would only add latency to every order the storefront sends.
func HashAPIKey(plain string) []byte {
	sum := sha256.Sum256([]byte(plain))
	return sum[:]
}

// APIKeyPrefix is the part of a key that may be stored and shown in listings:
// the environment prefix and the first few characters of the secret.
func APIKeyPrefix(plain string) string {
	n := len(SandboxKeyPrefix) + displayedSecretChars
	if len(plain) < n {
		return plain
	}
	return plain[:n]
}

// ParseAPIKey checks plain's format — fk_test_ or fk_live_ followed by 32 to
// 512 characters of [A-Za-z0-9] — and returns the environment it belongs to.
// A malformed key wraps accessports.ErrInvalidCredentials; the error never holds
// the key.
func ParseAPIKey(plain string) (domain.Environment, error) {
	var (
		env    domain.Environment
		secret string
	)
	switch {
	case strings.HasPrefix(plain, SandboxKeyPrefix):
		env, secret = domain.Sandbox, plain[len(SandboxKeyPrefix):]
	case strings.HasPrefix(plain, ProductionKeyPrefix):
		env, secret = domain.Production, plain[len(ProductionKeyPrefix):]
	default:
		return "", fmt.Errorf("api key: neither %s nor %s prefix: %w", SandboxKeyPrefix, ProductionKeyPrefix, accessports.ErrInvalidCredentials)
	}
	if len(secret) < minAPIKeySecretLen || len(secret) > maxAPIKeySecretLen {
		return "", fmt.Errorf("api key: %d characters after the prefix, want %d to %d: %w",
			len(secret), minAPIKeySecretLen, maxAPIKeySecretLen, accessports.ErrInvalidCredentials)
	}
	for i := 0; i < len(secret); i++ {
		if !isAlphanumeric(secret[i]) {
			return "", fmt.Errorf("api key: a character after the prefix is not [A-Za-z0-9]: %w", accessports.ErrInvalidCredentials)
		}
	}
	return env, nil
}

func isAlphanumeric(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// APIKeyVerifier verifies the API keys of one deployment's environment.
//
// Verified keys are remembered for APIKeyCacheTTL: the order intake would
// otherwise pay a database round trip per delivery for a record that changes
// only when a key is revoked. Only successes are remembered (an unknown or
// revoked key is looked up every time, so a key just created works at once),
// by the key's hash (never the key), in a bounded map. The price: a revoked
// key keeps working for up to APIKeyCacheTTL on each replica.
type APIKeyVerifier struct {
	repo     accessports.APIKeyRepository
	env      domain.Environment
	now      func() time.Time
	verified *shortCache[[sha256.Size]byte, accessports.Principal]
}

// APIKeyCacheTTL bounds how long a verified key is trusted without a
// lookup: the time a revocation takes to take effect.
const APIKeyCacheTTL = time.Second

var _ accessports.APIKeyVerifier = (*APIKeyVerifier)(nil)

// NewAPIKeyVerifier verifies keys against repo for a deployment serving env.
// With an env that is neither sandbox nor production every key is refused.
func NewAPIKeyVerifier(repo accessports.APIKeyRepository, env domain.Environment) *APIKeyVerifier {
	return &APIKeyVerifier{repo: repo, env: env, now: time.Now, verified: newShortCache[[sha256.Size]byte, accessports.Principal](APIKeyCacheTTL)}
}

// VerifyAPIKey returns the principal of key. Malformed keys and keys of the
// other environment are refused before any lookup, so that junk never costs
// a database round trip. Refusals wrap accessports.ErrInvalidCredentials; a
// repository failure is returned as it is (not a refusal: the caller answers
// 503 and the storefront retries).
func (v *APIKeyVerifier) VerifyAPIKey(ctx context.Context, key string) (accessports.Principal, error) {
	env, err := ParseAPIKey(key)
	if err != nil {
		return accessports.Principal{}, err
	}
	if env != v.env {
		return accessports.Principal{}, fmt.Errorf("api key: of environment %s, this deployment serves %q: %w", env, v.env, accessports.ErrInvalidCredentials)
	}
	hash := HashAPIKey(key)
	sum := [sha256.Size]byte(hash)
	now := v.now()
	if p, hit := v.verified.get(sum, now); hit {
		return clonePrincipal(p), nil
	}
	p, err := v.lookup(ctx, hash)
	if err != nil {
		return accessports.Principal{}, err
	}
	v.verified.put(sum, clonePrincipal(p), now)
	return p, nil
}

func clonePrincipal(p accessports.Principal) accessports.Principal {
	p.Scopes = slices.Clone(p.Scopes)
	return p
}

// lookup verifies the key of hash against the repository.
func (v *APIKeyVerifier) lookup(ctx context.Context, hash []byte) (accessports.Principal, error) {
	stored, err := v.repo.FindByHash(ctx, hash)
	switch {
	case errors.Is(err, domain.ErrNotFound):
		return accessports.Principal{}, fmt.Errorf("api key: unknown: %w", accessports.ErrInvalidCredentials)
	case err != nil:
		return accessports.Principal{}, fmt.Errorf("find api key: %w", err)
	}
	// The lookup matched on the hash already; comparing again, in constant
	// time, keeps a repository that matched loosely from letting a key in.
	if subtle.ConstantTimeCompare(stored.Hash, hash) != 1 {
		return accessports.Principal{}, fmt.Errorf("api key %s: stored hash differs: %w", stored.ID, accessports.ErrInvalidCredentials)
	}
	if stored.RevokedAt != nil {
		return accessports.Principal{}, fmt.Errorf("api key %s: revoked: %w", stored.ID, accessports.ErrInvalidCredentials)
	}
	if stored.Environment != v.env {
		return accessports.Principal{}, fmt.Errorf("api key %s: stored for environment %q, this deployment serves %q: %w",
			stored.ID, stored.Environment, v.env, accessports.ErrInvalidCredentials)
	}
	return accessports.Principal{
		OrganizationID: stored.OrganizationID,
		Subject:        stored.ID,
		Scopes:         slices.Clone(stored.Scopes),
	}, nil
}
