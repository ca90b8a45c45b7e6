package identity

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/ports"
)

// fakeKeyRepo is an in-memory ports.APIKeyRepository that counts lookups.
type fakeKeyRepo struct {
	mu     sync.Mutex
	byHash map[string]domain.APIKey
	err    error          // returned by FindByHash when set
	loose  *domain.APIKey // returned by FindByHash for any hash when set
	finds  int
}

var _ ports.APIKeyRepository = (*fakeKeyRepo)(nil)

func newFakeKeyRepo() *fakeKeyRepo { return &fakeKeyRepo{byHash: map[string]domain.APIKey{}} }

func (r *fakeKeyRepo) Create(_ context.Context, k domain.APIKey) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.byHash[string(k.Hash)] = k
	return nil
}

func (r *fakeKeyRepo) FindByHash(_ context.Context, hash []byte) (domain.APIKey, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.finds++
	switch {
	case r.err != nil:
		return domain.APIKey{}, r.err
	case r.loose != nil:
		return *r.loose, nil
	}
	k, ok := r.byHash[string(hash)]
	if !ok {
		return domain.APIKey{}, fmt.Errorf("api key by hash: %w", domain.ErrNotFound)
	}
	return k, nil
}

func (r *fakeKeyRepo) Revoke(_ context.Context, id string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for h, k := range r.byHash {
		if k.ID == id {
			now := time.Now()
			k.RevokedAt = &now
			r.byHash[h] = k
			return nil
		}
	}
	return domain.ErrNotFound
}

func (r *fakeKeyRepo) ListByOrganization(_ context.Context, org string) ([]domain.APIKey, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []domain.APIKey
	for _, k := range r.byHash {
		if k.OrganizationID == org {
			out = append(out, k)
		}
	}
	return out, nil
}

func (r *fakeKeyRepo) lookups() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.finds
}

// storeKey generates a key of env and stores it as stored says (ID, scopes,
// stored environment...).
func storeKey(t *testing.T, repo *fakeKeyRepo, env domain.Environment, stored domain.APIKey) string {
	t.Helper()
	plain, hash, prefix, err := GenerateAPIKey(env)
	if err != nil {
		t.Fatal(err)
	}
	stored.Hash, stored.Prefix = hash, prefix
	if stored.Environment == "" {
		stored.Environment = env
	}
	if err := repo.Create(context.Background(), stored); err != nil {
		t.Fatal(err)
	}
	return plain
}

func TestVerifyAPIKey(t *testing.T) {
	repo := newFakeKeyRepo()
	scopes := []domain.Scope{domain.ScopeShipments, domain.ScopeInventory}
	sandboxKey := storeKey(t, repo, domain.Sandbox, domain.APIKey{ID: "key_test", OrganizationID: "org_acme", Scopes: scopes})
	liveKey := storeKey(t, repo, domain.Production, domain.APIKey{ID: "key_live", OrganizationID: "org_acme", Scopes: scopes})
	noScopeKey := storeKey(t, repo, domain.Sandbox, domain.APIKey{ID: "key_none", OrganizationID: "org_beta"})
	revokedKey := storeKey(t, repo, domain.Sandbox, domain.APIKey{ID: "key_revoked", OrganizationID: "org_acme", Scopes: scopes})
	if err := repo.Revoke(context.Background(), "key_revoked"); err != nil {
		t.Fatal(err)
	}
	// A sandbox-looking key recorded as a production key (a bad seed):
	// the record is not to be trusted.
	mismatchKey := storeKey(t, repo, domain.Sandbox, domain.APIKey{ID: "key_mismatch", OrganizationID: "org_acme", Scopes: scopes, Environment: domain.Production})
	// A key made elsewhere with the shortest secret allowed, then seeded.
	seededKey := SandboxKeyPrefix + strings.Repeat("Ab3", 10) + "xy"
	if err := repo.Create(context.Background(), domain.APIKey{ID: "key_seeded", OrganizationID: "org_acme", Environment: domain.Sandbox, Hash: HashAPIKey(seededKey), Scopes: scopes}); err != nil {
		t.Fatal(err)
	}
	unknownKey, _, _, err := GenerateAPIKey(domain.Sandbox)
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name        string
		env         domain.Environment
		key         string
		want        ports.Principal
		wantErr     error
		wantLookups int
	}{
		{name: "sandbox key in sandbox", env: domain.Sandbox, key: sandboxKey,
			want: ports.Principal{OrganizationID: "org_acme", Subject: "key_test", Scopes: scopes}, wantLookups: 1},
		{name: "production key in production", env: domain.Production, key: liveKey,
			want: ports.Principal{OrganizationID: "org_acme", Subject: "key_live", Scopes: scopes}, wantLookups: 1},
		{name: "key without scopes", env: domain.Sandbox, key: noScopeKey,
			want: ports.Principal{OrganizationID: "org_beta", Subject: "key_none"}, wantLookups: 1},
		{name: "seeded key with a 32-character secret", env: domain.Sandbox, key: seededKey,
			want: ports.Principal{OrganizationID: "org_acme", Subject: "key_seeded", Scopes: scopes}, wantLookups: 1},

		{name: "production key in sandbox", env: domain.Sandbox, key: liveKey, wantErr: ports.ErrInvalidCredentials},
		{name: "sandbox key in production", env: domain.Production, key: sandboxKey, wantErr: ports.ErrInvalidCredentials},
		{name: "server of no known environment", env: "staging", key: sandboxKey, wantErr: ports.ErrInvalidCredentials},
		{name: "empty", env: domain.Sandbox, key: "", wantErr: ports.ErrInvalidCredentials},
		{name: "no prefix", env: domain.Sandbox, key: strings.TrimPrefix(sandboxKey, SandboxKeyPrefix), wantErr: ports.ErrInvalidCredentials},
		{name: "secret too short", env: domain.Sandbox, key: sandboxKey[:len(SandboxKeyPrefix)+31], wantErr: ports.ErrInvalidCredentials},
		{name: "bad character", env: domain.Sandbox, key: sandboxKey[:len(sandboxKey)-1] + "-", wantErr: ports.ErrInvalidCredentials},
		{name: "surrounding white space", env: domain.Sandbox, key: " " + sandboxKey, wantErr: ports.ErrInvalidCredentials},
		{name: "with the Bearer scheme", env: domain.Sandbox, key: "Bearer " + sandboxKey, wantErr: ports.ErrInvalidCredentials},

		{name: "unknown", env: domain.Sandbox, key: unknownKey, wantErr: ports.ErrInvalidCredentials, wantLookups: 1},
		{name: "one character changed", env: domain.Sandbox, key: flipLast(sandboxKey), wantErr: ports.ErrInvalidCredentials, wantLookups: 1},
		{name: "revoked", env: domain.Sandbox, key: revokedKey, wantErr: ports.ErrInvalidCredentials, wantLookups: 1},
		{name: "stored for the other environment", env: domain.Sandbox, key: mismatchKey, wantErr: ports.ErrInvalidCredentials, wantLookups: 1},
		{name: "stored for the other environment, in production", env: domain.Production, key: mismatchKey, wantErr: ports.ErrInvalidCredentials},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := repo.lookups()
			got, err := NewAPIKeyVerifier(repo, tt.env).VerifyAPIKey(context.Background(), tt.key)
			if lookups := repo.lookups() - before; lookups != tt.wantLookups {
				t.Errorf("lookups = %d, want %d", lookups, tt.wantLookups)
			}
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("VerifyAPIKey() = %+v, %v; want error %v", got, err, tt.wantErr)
				}
				if len(tt.key) > 12 && strings.Contains(err.Error(), tt.key[8:]) {
					t.Fatalf("error %q quotes the key", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("VerifyAPIKey() error = %v", err)
			}
			if got.OrganizationID != tt.want.OrganizationID || got.Subject != tt.want.Subject || !slices.Equal(got.Scopes, tt.want.Scopes) {
				t.Fatalf("VerifyAPIKey() = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func flipLast(key string) string {
	last := key[len(key)-1]
	if last == 'a' {
		return key[:len(key)-1] + "b"
	}
	return key[:len(key)-1] + "a"
}

// TestVerifyAPIKeyRepositoryFailure: a database failure is not a bad key —
// it must reach the HTTP layer as it is, to become a 503 the storefront
// retries, not a 401 it gives up on.
func TestVerifyAPIKeyRepositoryFailure(t *testing.T) {
	tests := []struct {
		name    string
		repoErr error
	}{
		{name: "connection refused", repoErr: errors.New("dial tcp 127.0.0.1:5432: connect: connection refused")},
		{name: "domain unavailable", repoErr: fmt.Errorf("find api key: %w", domain.ErrUnavailable)},
		{name: "context deadline", repoErr: context.DeadlineExceeded},
	}
	key, _, _, err := GenerateAPIKey(domain.Sandbox)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			repo := newFakeKeyRepo()
			repo.err = tt.repoErr
			_, err := NewAPIKeyVerifier(repo, domain.Sandbox).VerifyAPIKey(context.Background(), key)
			if !errors.Is(err, tt.repoErr) {
				t.Fatalf("error %v, want it to wrap %v", err, tt.repoErr)
			}
			if errors.Is(err, ports.ErrInvalidCredentials) {
				t.Fatalf("error %v is an ErrInvalidCredentials", err)
			}
		})
	}
}

// TestVerifyAPIKeyComparesHashes: a repository that matched loosely (here:
// any hash) does not let another key in.
func TestVerifyAPIKeyComparesHashes(t *testing.T) {
	repo := newFakeKeyRepo()
	stored, hash, _, err := GenerateAPIKey(domain.Sandbox)
	if err != nil {
		t.Fatal(err)
	}
	repo.loose = &domain.APIKey{ID: "key_1", OrganizationID: "org_acme", Environment: domain.Sandbox, Hash: hash}
	other, _, _, err := GenerateAPIKey(domain.Sandbox)
	if err != nil {
		t.Fatal(err)
	}
	v := NewAPIKeyVerifier(repo, domain.Sandbox)
	if _, err := v.VerifyAPIKey(context.Background(), other); !errors.Is(err, ports.ErrInvalidCredentials) {
		t.Fatalf("VerifyAPIKey(other key) error = %v, want ErrInvalidCredentials", err)
	}
	if _, err := v.VerifyAPIKey(context.Background(), stored); err != nil {
		t.Fatalf("VerifyAPIKey(stored key) error = %v", err)
	}
}

// TestVerifyAPIKeyScopesAreCopied: the caller may not change the stored
// record through the principal.
func TestVerifyAPIKeyScopesAreCopied(t *testing.T) {
	repo := newFakeKeyRepo()
	key := storeKey(t, repo, domain.Sandbox, domain.APIKey{ID: "key_1", OrganizationID: "org_acme", Scopes: []domain.Scope{domain.ScopeShipments}})
	v := NewAPIKeyVerifier(repo, domain.Sandbox)
	p, err := v.VerifyAPIKey(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	p.Scopes[0] = domain.ScopeInvoices
	p, err = v.VerifyAPIKey(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p.Scopes, []domain.Scope{domain.ScopeShipments}) {
		t.Fatalf("scopes = %v after the caller changed a copy", p.Scopes)
	}
}

func TestParseAPIKey(t *testing.T) {
	secret32 := strings.Repeat("aZ09", 8)
	tests := []struct {
		name    string
		key     string
		want    domain.Environment
		wantErr error
	}{
		{name: "sandbox, 40 characters", key: "fk_test_" + strings.Repeat("Ab1", 13) + "x", want: domain.Sandbox},
		{name: "production, 40 characters", key: "fk_live_" + strings.Repeat("Ab1", 13) + "x", want: domain.Production},
		{name: "32 characters", key: "fk_test_" + secret32, want: domain.Sandbox},
		{name: "512 characters", key: "fk_live_" + strings.Repeat("a", 512), want: domain.Production},

		{name: "31 characters", key: "fk_test_" + secret32[1:], wantErr: ports.ErrInvalidCredentials},
		{name: "513 characters", key: "fk_live_" + strings.Repeat("a", 513), wantErr: ports.ErrInvalidCredentials},
		{name: "prefix only", key: "fk_test_", wantErr: ports.ErrInvalidCredentials},
		{name: "empty", key: "", wantErr: ports.ErrInvalidCredentials},
		{name: "unknown environment", key: "fk_prod_" + secret32, wantErr: ports.ErrInvalidCredentials},
		{name: "upper-case prefix", key: "FK_TEST_" + secret32, wantErr: ports.ErrInvalidCredentials},
		{name: "no prefix", key: secret32 + "abcdefgh", wantErr: ports.ErrInvalidCredentials},
		{name: "underscore in the secret", key: "fk_test_" + secret32 + "_", wantErr: ports.ErrInvalidCredentials},
		{name: "hyphen in the secret", key: "fk_test_" + secret32 + "-", wantErr: ports.ErrInvalidCredentials},
		{name: "non-ASCII letter", key: "fk_test_" + secret32 + "é", wantErr: ports.ErrInvalidCredentials},
		{name: "trailing newline", key: "fk_test_" + secret32 + "\n", wantErr: ports.ErrInvalidCredentials},
		{name: "NUL byte", key: "fk_test_" + secret32 + "\x00", wantErr: ports.ErrInvalidCredentials},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseAPIKey(tt.key)
			if !errors.Is(err, tt.wantErr) || (tt.wantErr != nil) != (err != nil) {
				t.Fatalf("ParseAPIKey() error = %v, want %v", err, tt.wantErr)
			}
			if got != tt.want {
				t.Fatalf("ParseAPIKey() = %q, want %q", got, tt.want)
			}
			if err != nil && strings.Contains(err.Error(), secret32) {
				t.Fatalf("error %q quotes the key", err)
			}
		})
	}
}

func TestGenerateAPIKey(t *testing.T) {
	tests := []struct {
		env        domain.Environment
		wantFormat *regexp.Regexp
	}{
		{env: domain.Sandbox, wantFormat: regexp.MustCompile(`^fk_test_[A-Za-z0-9]{40}$`)},
		{env: domain.Production, wantFormat: regexp.MustCompile(`^fk_live_[A-Za-z0-9]{40}$`)},
	}
	for _, tt := range tests {
		t.Run(string(tt.env), func(t *testing.T) {
			seen := make(map[string]bool)
			for range 1000 {
				plain, hash, prefix, err := GenerateAPIKey(tt.env)
				if err != nil {
					t.Fatal(err)
				}
				if !tt.wantFormat.MatchString(plain) {
					t.Fatalf("key %q does not match %s", plain, tt.wantFormat)
				}
				if string(hash) != string(HashAPIKey(plain)) || len(hash) != 32 {
					t.Fatalf("hash %x is not the SHA-256 of the key", hash)
				}
				if prefix != plain[:12] {
					t.Fatalf("prefix %q, want %q", prefix, plain[:12])
				}
				if env, err := ParseAPIKey(plain); err != nil || env != tt.env {
					t.Fatalf("ParseAPIKey(generated) = %q, %v", env, err)
				}
				if seen[plain] {
					t.Fatalf("key generated twice")
				}
				seen[plain] = true
			}
		})
	}
}

func TestGenerateAPIKeyRefusesUnknownEnvironment(t *testing.T) {
	if plain, _, _, err := GenerateAPIKey("staging"); err == nil {
		t.Fatalf("GenerateAPIKey(staging) = %q, want an error", plain)
	}
}

// TestRandomAlphanumericIsUniform counts letters over many draws. Every
// letter is expected n/62 times, with a standard deviation of about 57 here;
// modulo bias (b%62 over all 256 byte values) would put 8 letters 25% (~800)
// above the rest. The bound of 7 standard deviations never fails by chance.
func TestRandomAlphanumericIsUniform(t *testing.T) {
	const n = 200_000
	s, err := randomAlphanumeric(n)
	if err != nil {
		t.Fatal(err)
	}
	if len(s) != n {
		t.Fatalf("len = %d, want %d", len(s), n)
	}
	counts := make(map[rune]int)
	for _, r := range s {
		counts[r]++
	}
	if len(counts) != len(apiKeyAlphabet) {
		t.Fatalf("%d distinct characters, want %d", len(counts), len(apiKeyAlphabet))
	}
	p := 1.0 / float64(len(apiKeyAlphabet))
	mean, sd := n*p, math.Sqrt(n*p*(1-p))
	for r, c := range counts {
		if !strings.ContainsRune(apiKeyAlphabet, r) {
			t.Fatalf("character %q is not in the alphabet", r)
		}
		if math.Abs(float64(c)-mean) > 7*sd {
			t.Errorf("character %q drawn %d times, want %.0f ± %.0f", r, c, mean, 7*sd)
		}
	}
}

func TestHashAPIKey(t *testing.T) {
	// FIPS 180-2 test vector.
	if got, want := hex.EncodeToString(HashAPIKey("abc")), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"; got != want {
		t.Fatalf("HashAPIKey(abc) = %s, want %s", got, want)
	}
}

func TestAPIKeyPrefix(t *testing.T) {
	tests := []struct {
		key  string
		want string
	}{
		{key: "fk_live_AbCdEfGh", want: "fk_live_AbCd"},
		{key: "fk_test_A", want: "fk_test_A"},
	}
	for _, tt := range tests {
		if got := APIKeyPrefix(tt.key); got != tt.want {
			t.Errorf("APIKeyPrefix(%q) = %q, want %q", tt.key, got, tt.want)
		}
	}
}

// TestVerifyAPIKeyCache: a verified key is trusted without a lookup for
// APIKeyCacheTTL, so a revocation takes effect within it; refusals are
// never remembered.
func TestVerifyAPIKeyCache(t *testing.T) {
	ctx := context.Background()
	repo := newFakeKeyRepo()
	key := storeKey(t, repo, domain.Sandbox, domain.APIKey{ID: "key_1", OrganizationID: "org_acme", Scopes: []domain.Scope{domain.ScopeShipments}})
	v := NewAPIKeyVerifier(repo, domain.Sandbox)
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	v.now = func() time.Time { return now }
	for range 3 {
		if _, err := v.VerifyAPIKey(ctx, key); err != nil {
			t.Fatal(err)
		}
	}
	if n := repo.lookups(); n != 1 {
		t.Fatalf("%d lookups for three verifications within the TTL, want 1", n)
	}
	if err := repo.Revoke(ctx, "key_1"); err != nil {
		t.Fatal(err)
	}
	now = now.Add(APIKeyCacheTTL - time.Millisecond)
	if _, err := v.VerifyAPIKey(ctx, key); err != nil {
		t.Fatalf("revoked key within the TTL: %v, want still accepted", err)
	}
	now = now.Add(time.Millisecond)
	for range 2 { // refused, and the refusal is not remembered
		if _, err := v.VerifyAPIKey(ctx, key); !errors.Is(err, ports.ErrInvalidCredentials) {
			t.Fatalf("revoked key after the TTL: %v, want ErrInvalidCredentials", err)
		}
	}
	if n := repo.lookups(); n != 3 {
		t.Fatalf("%d lookups, want 3 (refusals are looked up every time)", n)
	}

	// An unknown key that becomes known works at once.
	other, hash, prefix, err := GenerateAPIKey(domain.Sandbox)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.VerifyAPIKey(ctx, other); !errors.Is(err, ports.ErrInvalidCredentials) {
		t.Fatalf("unknown key: %v", err)
	}
	if err := repo.Create(ctx, domain.APIKey{ID: "key_2", OrganizationID: "org_acme", Environment: domain.Sandbox, Hash: hash, Prefix: prefix}); err != nil {
		t.Fatal(err)
	}
	if _, err := v.VerifyAPIKey(ctx, other); err != nil {
		t.Fatalf("key created after a refusal: %v, want accepted at once", err)
	}
}
