package identity

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/acme3pl/fulfillment/domain"
)

// decodeSegment decodes one segment of a compact JWS into a map.
func decodeSegment(t *testing.T, token string, i int) map[string]any {
	t.Helper()
	raw, err := base64.RawURLEncoding.DecodeString(strings.Split(token, ".")[i])
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestMintTokenClaims(t *testing.T) {
	now := time.Date(2026, 11, 22, 1, 15, 5, 123e6, time.UTC)
	cfg := TokenConfig{SigningKey: testSecret, Issuer: testIssuer, Audience: testAudience, OrgClaim: "tenant"}
	token, err := MintToken(cfg, MintParams{Organization: "org_acme", Scopes: []string{"invoices", "shipments"}, TTL: time.Hour, Now: now})
	if err != nil {
		t.Fatal(err)
	}

	header := decodeSegment(t, token, 0)
	if want := map[string]any{"alg": "HS256", "typ": "JWT"}; !reflect.DeepEqual(header, want) {
		t.Fatalf("header = %v, want %v", header, want)
	}
	payload := decodeSegment(t, token, 1)
	jti, _ := payload["jti"].(string)
	if len(jti) != 22 {
		t.Fatalf("jti = %q, want 22 base64url characters", jti)
	}
	delete(payload, "jti")
	want := map[string]any{
		"tenant": "org_acme",
		"scope":  "invoices shipments",
		"sub":    "cli",
		"iss":    testIssuer,
		"aud":    testAudience,
		"iat":    float64(now.Unix()),
		"nbf":    float64(now.Unix()),
		"exp":    float64(now.Add(time.Hour).Unix()),
	}
	if !reflect.DeepEqual(payload, want) {
		t.Fatalf("payload = %v, want %v", payload, want)
	}
}

func TestMintTokenOmitsUnsetClaims(t *testing.T) {
	token, err := MintToken(TokenConfig{SigningKey: testSecret}, MintParams{Organization: "org_acme", TTL: time.Minute, Subject: "ops"})
	if err != nil {
		t.Fatal(err)
	}
	payload := decodeSegment(t, token, 1)
	for _, k := range []string{"iss", "aud", "scope"} {
		if _, ok := payload[k]; ok {
			t.Errorf("claim %s present: %v", k, payload[k])
		}
	}
	if payload["sub"] != "ops" || payload["org_id"] != "org_acme" {
		t.Errorf("payload = %v, want sub ops and org_id org_acme", payload)
	}
}

// TestMintTokenIsAccepted: what the CLI mints, serve accepts — with the same
// configuration only.
func TestMintTokenIsAccepted(t *testing.T) {
	cfg := TokenConfig{SigningKey: testSecret, Issuer: testIssuer, Audience: testAudience, OrgClaim: "https://acme3pl.com/org"}
	mint := func(cfg TokenConfig, p MintParams) string {
		t.Helper()
		token, err := MintToken(cfg, p)
		if err != nil {
			t.Fatal(err)
		}
		return token
	}
	params := MintParams{Organization: "org_acme", Scopes: []string{"invoices", "locations"}, TTL: time.Hour}
	otherKey := cfg
	otherKey.SigningKey = []byte("not-the-server-secret-not-the-server-secret")
	otherAud := cfg
	otherAud.Audience = "another-api"
	expired := params
	expired.Now = time.Now().Add(-2 * time.Hour)
	future := params
	future.Now = time.Now().Add(time.Hour)

	tests := []verifyCase{
		{name: "same config", token: mint(cfg, params), want: principalOf("org_acme", "cli", domain.ScopeInvoices, domain.ScopeLocations)},
		{name: "another signing key", token: mint(otherKey, params), wantErr: jwt.ErrTokenSignatureInvalid},
		{name: "another audience", token: mint(otherAud, params), wantErr: jwt.ErrTokenInvalidAudience},
		{name: "past its ttl", token: mint(cfg, expired), wantErr: jwt.ErrTokenExpired},
		{name: "minted in the future", token: mint(cfg, future), wantErr: jwt.ErrTokenNotValidYet},
	}
	v, _ := newVerifier(t, cfg, testJWKSOptions)
	checkVerifyCases(t, v, tests)
}

func TestMintTokenRefuses(t *testing.T) {
	ok := MintParams{Organization: "org_acme", Scopes: []string{"invoices"}, TTL: time.Hour}
	tests := []struct {
		name    string
		cfg     TokenConfig
		params  MintParams
		wantMsg string
	}{
		{name: "no signing key", cfg: TokenConfig{JWKSURL: "https://idp.example.com/jwks"}, params: ok, wantMsg: "no signing key"},
		{name: "empty organization", cfg: TokenConfig{SigningKey: testSecret}, params: MintParams{TTL: time.Hour}, wantMsg: "exactly one of organization and warehouse"},
		{name: "blank organization", cfg: TokenConfig{SigningKey: testSecret}, params: MintParams{Organization: " ", TTL: time.Hour}, wantMsg: "exactly one of organization and warehouse"},
		{name: "organization and warehouse", cfg: TokenConfig{SigningKey: testSecret}, params: MintParams{Organization: "org_acme", Warehouse: "wh_east", TTL: time.Hour}, wantMsg: "exactly one of organization and warehouse"},
		{name: "warehouse claim sub", cfg: TokenConfig{SigningKey: testSecret, WarehouseClaim: "sub"}, params: MintParams{Warehouse: "wh_east", TTL: time.Hour}, wantMsg: "claim"},
		{name: "zero ttl", cfg: TokenConfig{SigningKey: testSecret}, params: MintParams{Organization: "org_acme"}, wantMsg: "ttl"},
		{name: "negative ttl", cfg: TokenConfig{SigningKey: testSecret}, params: MintParams{Organization: "org_acme", TTL: -time.Hour}, wantMsg: "ttl"},
		{name: "scope with a space", cfg: TokenConfig{SigningKey: testSecret}, params: MintParams{Organization: "org_acme", TTL: time.Hour, Scopes: []string{"invoices shipments"}}, wantMsg: "white space"},
		{name: "scope with a no-break space", cfg: TokenConfig{SigningKey: testSecret}, params: MintParams{Organization: "org_acme", TTL: time.Hour, Scopes: []string{"invoices\u00a0x"}}, wantMsg: "white space"},
		{name: "empty scope", cfg: TokenConfig{SigningKey: testSecret}, params: MintParams{Organization: "org_acme", TTL: time.Hour, Scopes: []string{""}}, wantMsg: "empty"},
		{name: "org claim sub", cfg: TokenConfig{SigningKey: testSecret, OrgClaim: "sub"}, params: ok, wantMsg: "claim"},
		{name: "org claim scope", cfg: TokenConfig{SigningKey: testSecret, OrgClaim: "scope"}, params: ok, wantMsg: "claim"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := MintToken(tt.cfg, tt.params)
			if err == nil {
				t.Fatalf("MintToken() = %q, want an error", got)
			}
			if !strings.Contains(err.Error(), tt.wantMsg) {
				t.Fatalf("error %q, want it to mention %q", err, tt.wantMsg)
			}
		})
	}
}

func TestMintTokenJTIsAreUnique(t *testing.T) {
	now := time.Now()
	seen := make(map[string]bool)
	for range 200 {
		token, err := MintToken(TokenConfig{SigningKey: testSecret}, MintParams{Organization: "org_acme", TTL: time.Hour, Now: now})
		if err != nil {
			t.Fatal(err)
		}
		jti := decodeSegment(t, token, 1)["jti"].(string)
		if seen[jti] {
			t.Fatalf("jti %q minted twice", jti)
		}
		seen[jti] = true
	}
}

func TestMintWarehouseTokenVerifies(t *testing.T) {
	cfg := TokenConfig{SigningKey: testSecret, WarehouseClaim: "site"}
	token, err := MintToken(cfg, MintParams{Warehouse: "wh_east", Scopes: []string{"warehouse"}, TTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	payload := decodeSegment(t, token, 1)
	if payload["site"] != "wh_east" || payload["org_id"] != nil {
		t.Fatalf("payload = %v, want the warehouse in claim site and no organization claim", payload)
	}
	v, _ := newVerifier(t, cfg, testJWKSOptions)
	p, err := v.VerifyAccessToken(context.Background(), token)
	if err != nil {
		t.Fatal(err)
	}
	if p.WarehouseID != "wh_east" || p.OrganizationID != "" || !p.Has(domain.ScopeWarehouse) {
		t.Fatalf("principal = %+v, want warehouse wh_east with scope warehouse", p)
	}
}
