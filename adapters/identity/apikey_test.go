package identity

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/domain"
	accessports "github.com/acme3pl/fulfillment/ports/access"
)

// fakeKeyRepo is an in-memory accessports.APIKeyRepository that counts lookups.
type fakeKeyRepo struct {
	mu     sync.Mutex
	byHash map[string]domain.APIKey
	err    error          // returned by FindByHash when set
	loose  *domain.APIKey // returned by FindByHash for any hash when set
	finds  int
}

var _ accessports.APIKeyRepository = (*fakeKeyRepo)(nil)

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

func (r *fakeKeyRepo) Revoke(_ context.Context, id string) (domain.APIKey, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for h, k := range r.byHash {
		if k.ID == id {
			was := k
			now := time.Now()
			k.RevokedAt = &now
			r.byHash[h] = k
			return was, nil
		}
	}
	return domain.APIKey{}, domain.ErrNotFound
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
	if _, err := repo.Revoke(context.Background(), "key_revoked"); err != nil {
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
		want        accessports.Principal
		wantErr     error
		wantLookups int
	}{
		{name: "sandbox key in sandbox", env: domain.Sandbox, key: sandboxKey,
			want: accessports.Principal{OrganizationID: "org_acme", Subject: "key_test", Scopes: scopes}, wantLookups: 1},
		{name: "production key in production", env: domain.Production, key: liveKey,
			want: accessports.Principal{OrganizationID: "org_acme", Subject: "key_live", Scopes: scopes}, wantLookups: 1},
		{name: "key without scopes", env: domain.Sandbox, key: noScopeKey,
			want: accessports.Principal{OrganizationID: "org_beta", Subject: "key_none"}, wantLookups: 1},
		{name: "seeded key with a 32-character secret", env: domain.Sandbox, key: seededKey,
			want: accessports.Principal{OrganizationID: "org_acme", Subject: "key_seeded", Scopes: scopes}, wantLookups: 1},

		{name: "production key in sandbox", env: domain.Sandbox, key: liveKey, wantErr: accessports.ErrInvalidCredentials},
		{name: "sandbox key in production", env: domain.Production, key: sandboxKey, wantErr: accessports.ErrInvalidCredentials},
		{name: "server of no known environment", env: "staging", key: sandboxKey, wantErr: accessports.ErrInvalidCredentials},
		{name: "empty", env: domain.Sandbox, key: "", wantErr: accessports.ErrInvalidCredentials},
		{name: "no prefix", env: domain.Sandbox, key: strings.TrimPrefix(sandboxKey, SandboxKeyPrefix), wantErr: accessports.ErrInvalidCredentials},
		{name: "secret too short", env: domain.Sandbox, key: sandboxKey[:len(SandboxKeyPrefix)+31], wantErr: accessports.ErrInvalidCredentials},
		{name: "bad character", env: domain.Sandbox, key: sandboxKey[:len(sandboxKey)-1] + "-", wantErr: accessports.ErrInvalidCredentials},
		{name: "surrounding white space", env: domain.Sandbox, key: " " + sandboxKey, wantErr: accessports.ErrInvalidCredentials},
		{name: "with the Bearer scheme", env: domain.Sandbox, key: "Bearer " + sandboxKey, wantErr: accessports.ErrInvalidCredentials},

		{name: "unknown", env: domain.Sandbox, key: unknownKey, wantErr: accessports.ErrInvalidCredentials, wantLookups: 1},
		{name: "one character changed", env: domain.Sandbox, key: flipLast(sandboxKey), wantErr: accessports.ErrInvalidCredentials, wantLookups: 1},
		{name: "revoked", env: domain.Sandbox, key: revokedKey, wantErr: accessports.ErrInvalidCredentials, wantLookups: 1},
		{name: "stored for the other environment", env: domain.Sandbox, key: mismatchKey, wantErr: accessports.ErrInvalidCredentials, wantLookups: 1},
		{name: "stored for the other environment, in production", env: domain.Production, key: mismatchKey, wantErr: accessports.ErrInvalidCredentials},
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
			if errors.Is(err, accessports.ErrInvalidCredentials) {
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
	if _, err := v.VerifyAPIKey(context.Background(), other); !errors.Is(err, accessports.ErrInvalidCredentials) {
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
	if _, err := repo.Revoke(ctx, "key_1"); err != nil {
		t.Fatal(err)
	}
	now = now.Add(APIKeyCacheTTL - time.Millisecond)
	if _, err := v.VerifyAPIKey(ctx, key); err != nil {
		t.Fatalf("revoked key within the TTL: %v, want still accepted", err)
	}
	now = now.Add(time.Millisecond)
	for range 2 { // refused, and the refusal is not remembered
		if _, err := v.VerifyAPIKey(ctx, key); !errors.Is(err, accessports.ErrInvalidCredentials) {
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
	if _, err := v.VerifyAPIKey(ctx, other); !errors.Is(err, accessports.ErrInvalidCredentials) {
		t.Fatalf("unknown key: %v", err)
	}
	if err := repo.Create(ctx, domain.APIKey{ID: "key_2", OrganizationID: "org_acme", Environment: domain.Sandbox, Hash: hash, Prefix: prefix}); err != nil {
		t.Fatal(err)
	}
	if _, err := v.VerifyAPIKey(ctx, other); err != nil {
		t.Fatalf("key created after a refusal: %v, want accepted at once", err)
	}
}
