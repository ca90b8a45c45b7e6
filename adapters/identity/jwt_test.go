package identity

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/acme3pl/fulfillment/domain"
	accessports "github.com/acme3pl/fulfillment/ports/access"
)

func principalOf(org, sub string, scopes ...domain.Scope) accessports.Principal {
	if scopes == nil {
		scopes = []domain.Scope{}
	}
	return accessports.Principal{OrganizationID: org, Subject: sub, Scopes: scopes}
}

var acme = principalOf("org_acme", "user_1", domain.ScopeInvoices, domain.ScopeShipments)

var warehouseEast = accessports.Principal{WarehouseID: "wh_east", Subject: "user_1", Scopes: []domain.Scope{domain.ScopeWarehouse}}

func TestVerifyHS256(t *testing.T) {
	now := time.Now()
	c := claims(now)
	hs := func(c jwt.MapClaims) string { return sign(jwt.SigningMethodHS256, testSecret, "", c) }
	valid := hs(c)
	parts := strings.Split(valid, ".")
	otherPayload := strings.Split(hs(with(c, "org_id", "org_evil")), ".")[1]

	tests := []verifyCase{
		{name: "valid", token: valid, want: acme},
		{name: "scope with extra white space", token: hs(with(c, "scope", "  invoices \t shipments ")), want: acme},
		{name: "no scope claim", token: hs(without(c, "scope")), want: principalOf("org_acme", "user_1")},
		{name: "scp array", token: hs(without(with(c, "scp", []string{"invoices", "locations"}), "scope")),
			want: principalOf("org_acme", "user_1", domain.ScopeInvoices, domain.ScopeLocations)},
		{name: "scp space-separated string", token: hs(without(with(c, "scp", "invoices locations"), "scope")),
			want: principalOf("org_acme", "user_1", domain.ScopeInvoices, domain.ScopeLocations)},
		{name: "scope and scp are merged without duplicates", token: hs(with(c, "scope", "invoices", "scp", []string{"invoices", "inventory"})),
			want: principalOf("org_acme", "user_1", domain.ScopeInvoices, domain.ScopeInventory)},
		{name: "aud array containing the audience", token: hs(with(c, "aud", []string{"other", testAudience})), want: acme},
		{name: "no sub", token: hs(without(c, "sub")), want: principalOf("org_acme", "", domain.ScopeInvoices, domain.ScopeShipments)},
		{name: "no nbf and no iat", token: hs(without(c, "nbf", "iat")), want: acme},

		{name: "empty", token: "", wantErr: accessports.ErrInvalidCredentials},
		{name: "not a JWT", token: "not-a-jwt", wantErr: accessports.ErrInvalidCredentials},
		{name: "header not base64", token: "!!!." + parts[1] + "." + parts[2], wantErr: accessports.ErrInvalidCredentials},
		{name: "header not JSON", token: b64([]byte("alg")) + "." + parts[1] + "." + parts[2], wantErr: accessports.ErrInvalidCredentials},
		{name: "header without alg", token: craft(map[string]any{"typ": "JWT"}, c, hmacSig(testSecret)), wantErr: accessports.ErrInvalidCredentials},
		{name: "two segments", token: parts[0] + "." + parts[1], wantErr: jwt.ErrTokenMalformed},
		{name: "too long", token: hs(with(c, "pad", strings.Repeat("x", maxTokenBytes))), wantErr: accessports.ErrInvalidCredentials},

		{name: "missing exp", token: hs(without(c, "exp")), wantErr: jwt.ErrTokenRequiredClaimMissing},
		{name: "exp zero", token: hs(with(c, "exp", 0)), wantErr: jwt.ErrTokenRequiredClaimMissing},
		{name: "exp not a number", token: hs(with(c, "exp", "tomorrow")), wantErr: jwt.ErrInvalidType},
		{name: "expired", token: hs(with(c, "exp", now.Add(-time.Minute).Unix())), wantErr: jwt.ErrTokenExpired},
		{name: "nbf in the future", token: hs(with(c, "nbf", now.Add(time.Hour).Unix())), wantErr: jwt.ErrTokenNotValidYet},
		{name: "iat in the future", token: hs(with(c, "iat", now.Add(time.Hour).Unix())), wantErr: jwt.ErrTokenUsedBeforeIssued},

		{name: "wrong iss", token: hs(with(c, "iss", "https://evil.example.com/")), wantErr: jwt.ErrTokenInvalidIssuer},
		{name: "iss differs in case", token: hs(with(c, "iss", strings.ToUpper(testIssuer))), wantErr: jwt.ErrTokenInvalidIssuer},
		{name: "missing iss", token: hs(without(c, "iss")), wantErr: jwt.ErrTokenRequiredClaimMissing},
		{name: "wrong aud", token: hs(with(c, "aud", "another-api")), wantErr: jwt.ErrTokenInvalidAudience},
		{name: "aud array without the audience", token: hs(with(c, "aud", []string{"a", "b"})), wantErr: jwt.ErrTokenInvalidAudience},
		{name: "missing aud", token: hs(without(c, "aud")), wantErr: jwt.ErrTokenRequiredClaimMissing},

		{name: "alg none, no signature", token: craft(map[string]any{"alg": "none", "typ": "JWT"}, c, noSig), wantErr: accessports.ErrInvalidCredentials},
		{name: "alg None", token: craft(map[string]any{"alg": "None"}, c, noSig), wantErr: accessports.ErrInvalidCredentials},
		{name: "alg none with an HMAC signature", token: craft(map[string]any{"alg": "none"}, c, hmacSig(testSecret)), wantErr: accessports.ErrInvalidCredentials},
		{name: "alg hs256 in lower case", token: craft(map[string]any{"alg": "hs256"}, c, hmacSig(testSecret)), wantErr: accessports.ErrInvalidCredentials},
		{name: "alg HS384 with the right secret", token: sign(jwt.SigningMethodHS384, testSecret, "", c), wantErr: accessports.ErrInvalidCredentials},
		{name: "alg HS512 with the right secret", token: sign(jwt.SigningMethodHS512, testSecret, "", c), wantErr: accessports.ErrInvalidCredentials},
		{name: "duplicate alg members", token: craft(map[string]any{"alg": "HS256", "ALG": "none"}, c, hmacSig(testSecret)), want: acme},
		{name: "signed with another secret", token: sign(jwt.SigningMethodHS256, []byte("another-secret-another-secret-12"), "", c), wantErr: jwt.ErrTokenSignatureInvalid},
		{name: "payload swapped after signing", token: parts[0] + "." + otherPayload + "." + parts[2], wantErr: jwt.ErrTokenSignatureInvalid},
		{name: "signature stripped", token: parts[0] + "." + parts[1] + ".", wantErr: jwt.ErrTokenSignatureInvalid},
		{name: "RS256 token without a JWKS", token: sign(jwt.SigningMethodRS256, rsaKeyA(), "rsa-a", c), wantErr: accessports.ErrInvalidCredentials},
		{name: "ES256 token without a JWKS", token: sign(jwt.SigningMethodES256, ecKey1(), "ec-1", c), wantErr: accessports.ErrInvalidCredentials},

		{name: "missing org claim", token: hs(without(c, "org_id")), wantErr: accessports.ErrInvalidCredentials},
		{name: "empty org claim", token: hs(with(c, "org_id", "")), wantErr: accessports.ErrInvalidCredentials},
		{name: "blank org claim", token: hs(with(c, "org_id", "  ")), wantErr: accessports.ErrInvalidCredentials},
		{name: "numeric org claim", token: hs(with(c, "org_id", 42)), wantErr: accessports.ErrInvalidCredentials},
		{name: "null org claim", token: hs(with(c, "org_id", nil)), wantErr: accessports.ErrInvalidCredentials},
		{name: "org under another claim only", token: hs(with(without(c, "org_id"), "tenant", "org_acme")), wantErr: accessports.ErrInvalidCredentials},
		{name: "org and warehouse claims both", token: hs(with(c, "warehouse_id", "wh_east")), wantErr: accessports.ErrInvalidCredentials},
		{name: "warehouse claim only", token: hs(with(without(c, "org_id"), "warehouse_id", "wh_east", "scope", "warehouse")), want: warehouseEast},
		{name: "warehouse claim with a null org claim", token: hs(with(c, "org_id", nil, "warehouse_id", "wh_east", "scope", "warehouse")), want: warehouseEast},
		{name: "empty warehouse claim", token: hs(with(without(c, "org_id"), "warehouse_id", "")), wantErr: accessports.ErrInvalidCredentials},
		{name: "numeric warehouse claim", token: hs(with(without(c, "org_id"), "warehouse_id", 7)), wantErr: accessports.ErrInvalidCredentials},
		{name: "empty warehouse claim beside an org claim", token: hs(with(c, "warehouse_id", "")), wantErr: accessports.ErrInvalidCredentials},
		{name: "sub not a string", token: hs(with(c, "sub", 7)), wantErr: accessports.ErrInvalidCredentials},
		{name: "scope not a string", token: hs(with(c, "scope", []string{"invoices"})), wantErr: accessports.ErrInvalidCredentials},
		{name: "scp an object", token: hs(with(c, "scp", map[string]any{"invoices": true})), wantErr: accessports.ErrInvalidCredentials},
		{name: "scp array with a number", token: hs(with(c, "scp", []any{"invoices", 1})), wantErr: accessports.ErrInvalidCredentials},
	}
	v, _ := newVerifier(t, TokenConfig{SigningKey: testSecret, Issuer: testIssuer, Audience: testAudience}, testJWKSOptions)
	checkVerifyCases(t, v, tests)
}

func TestVerifyWithoutIssuerOrAudienceConfigured(t *testing.T) {
	c := claims(time.Now())
	hs := func(c jwt.MapClaims) string { return sign(jwt.SigningMethodHS256, testSecret, "", c) }
	tests := []struct {
		name  string
		token string
	}{
		{name: "any iss and aud", token: hs(with(c, "iss", "whoever", "aud", "whatever"))},
		{name: "no iss and no aud", token: hs(without(c, "iss", "aud"))},
	}
	v, _ := newVerifier(t, TokenConfig{SigningKey: testSecret}, testJWKSOptions)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkVerify(t, v, tt.token, acme, nil)
		})
	}
}

func TestVerifyCustomOrgClaim(t *testing.T) {
	const orgClaim = "https://acme3pl.com/org"
	c := without(claims(time.Now()), "org_id")
	hs := func(c jwt.MapClaims) string { return sign(jwt.SigningMethodHS256, testSecret, "", c) }
	tests := []verifyCase{
		{name: "org in the custom claim", token: hs(with(c, orgClaim, "org_acme")), want: acme},
		{name: "custom claim wins over org_id", token: hs(with(c, orgClaim, "org_acme", "org_id", "org_other")), want: acme},
		{name: "org only in org_id", token: hs(with(c, "org_id", "org_acme")), wantErr: accessports.ErrInvalidCredentials},
		{name: "custom claim empty", token: hs(with(c, orgClaim, "")), wantErr: accessports.ErrInvalidCredentials},
	}
	v, _ := newVerifier(t, TokenConfig{SigningKey: testSecret, Issuer: testIssuer, Audience: testAudience, OrgClaim: orgClaim}, testJWKSOptions)
	checkVerifyCases(t, v, tests)
}

func TestVerifyLeeway(t *testing.T) {
	now := time.Now()
	c := claims(now)
	hs := func(c jwt.MapClaims) string { return sign(jwt.SigningMethodHS256, testSecret, "", c) }
	tests := []struct {
		name    string
		token   string
		wantErr error
	}{
		{name: "expired within leeway", token: hs(with(c, "exp", now.Add(-10*time.Second).Unix()))},
		{name: "nbf within leeway", token: hs(with(c, "nbf", now.Add(10*time.Second).Unix()))},
		{name: "iat within leeway", token: hs(with(c, "iat", now.Add(10*time.Second).Unix()))},
		{name: "expired beyond leeway", token: hs(with(c, "exp", now.Add(-2*time.Minute).Unix())), wantErr: jwt.ErrTokenExpired},
		{name: "nbf beyond leeway", token: hs(with(c, "nbf", now.Add(2*time.Minute).Unix())), wantErr: jwt.ErrTokenNotValidYet},
	}
	v, _ := newVerifier(t, TokenConfig{SigningKey: testSecret, Issuer: testIssuer, Audience: testAudience, Leeway: 30 * time.Second}, testJWKSOptions)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkVerify(t, v, tt.token, acme, tt.wantErr)
		})
	}
}

func TestNewTokenVerifierRefusesBadConfig(t *testing.T) {
	tests := []struct {
		name    string
		cfg     TokenConfig
		wantMsg string
	}{
		{name: "no key source", cfg: TokenConfig{Issuer: testIssuer}, wantMsg: "neither a signing key nor a JWKS URL"},
		{name: "negative leeway", cfg: TokenConfig{SigningKey: testSecret, Leeway: -time.Second}, wantMsg: "leeway"},
		{name: "leeway too large", cfg: TokenConfig{SigningKey: testSecret, Leeway: time.Hour}, wantMsg: "leeway"},
		{name: "org claim with white space", cfg: TokenConfig{SigningKey: testSecret, OrgClaim: " org"}, wantMsg: "organization claim"},
		{name: "warehouse claim with white space", cfg: TokenConfig{SigningKey: testSecret, WarehouseClaim: "wh "}, wantMsg: "warehouse claim"},
		{name: "one claim for both", cfg: TokenConfig{SigningKey: testSecret, OrgClaim: "tenant", WarehouseClaim: "tenant"}, wantMsg: "both"},
		{name: "JWKS URL not a URL", cfg: TokenConfig{JWKSURL: "::nope"}, wantMsg: "not an absolute http(s) URL"},
		{name: "JWKS URL relative", cfg: TokenConfig{JWKSURL: "/jwks.json"}, wantMsg: "not an absolute http(s) URL"},
		{name: "JWKS URL without host", cfg: TokenConfig{JWKSURL: "https:///jwks.json"}, wantMsg: "not an absolute http(s) URL"},
		{name: "JWKS URL of another scheme", cfg: TokenConfig{JWKSURL: "ftp://idp.example.com/jwks.json"}, wantMsg: "not an absolute http(s) URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := NewTokenVerifier(context.Background(), tt.cfg, nil)
			if err == nil {
				v.Close()
				t.Fatal("NewTokenVerifier() error = nil")
			}
			if !strings.Contains(err.Error(), tt.wantMsg) {
				t.Fatalf("error %q, want it to mention %q", err, tt.wantMsg)
			}
		})
	}
}

func TestNewTokenVerifierErrorHidesSecrets(t *testing.T) {
	tests := []struct {
		name string
		url  string
	}{
		{name: "other scheme", url: "ftp://user:hunter2@idp.example.com/jwks"},
		{name: "unparsable", url: "http://user:hunter2@idp.example.com:port/jwks"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewTokenVerifier(context.Background(), TokenConfig{SigningKey: testSecret, JWKSURL: tt.url}, nil)
			if err == nil {
				t.Fatal("NewTokenVerifier() error = nil")
			}
			if strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), string(testSecret)) {
				t.Fatalf("error %q leaks a secret", err)
			}
		})
	}
}

func TestNewTokenVerifierRefusesEndedContext(t *testing.T) {
	idp := newJWKSServer(t, rsaJWK("key-a", &rsaKeyA().PublicKey, nil))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := NewTokenVerifier(ctx, TokenConfig{JWKSURL: idp.url()}, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("NewTokenVerifier() error = %v, want context.Canceled", err)
	}
}

// TestVerifyConcurrently exercises the verifier from many goroutines (run
// with -race).
func TestVerifyConcurrently(t *testing.T) {
	c := claims(time.Now())
	idp := newJWKSServer(t, idpKeys()...)
	v, _ := newVerifier(t, TokenConfig{SigningKey: testSecret, JWKSURL: idp.url(), Issuer: testIssuer, Audience: testAudience}, testJWKSOptions)
	tokens := []string{
		sign(jwt.SigningMethodHS256, testSecret, "", c),
		sign(jwt.SigningMethodRS256, rsaKeyA(), "rsa-a", c),
		sign(jwt.SigningMethodES256, ecKey1(), "", c),
	}
	errs := make(chan error, 8*len(tokens))
	for range 8 {
		for _, tok := range tokens {
			go func() {
				_, err := v.VerifyAccessToken(context.Background(), tok)
				errs <- err
			}()
		}
	}
	for range 8 * len(tokens) {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

func TestHeaderAlg(t *testing.T) {
	tests := []struct {
		name    string
		token   string
		want    string
		wantErr bool
	}{
		{name: "HS256", token: b64([]byte(`{"alg":"HS256","typ":"JWT"}`)) + ".e30.x", want: "HS256"},
		{name: "member names are case-sensitive", token: b64([]byte(`{"ALG":"none","alg":"RS256"}`)) + ".e30.x", want: "RS256"},
		{name: "last duplicate wins, as in the jwt parser", token: b64([]byte(`{"alg":"none","alg":"ES256"}`)) + ".e30.x", want: "ES256"},
		{name: "no dot", token: "abc", wantErr: true},
		{name: "padded base64", token: b64([]byte(`{"alg":"HS256"}`)) + "=.e30.x", wantErr: true},
		{name: "alg not a string", token: b64([]byte(`{"alg":1}`)) + ".e30.x", wantErr: true},
		{name: "header an array", token: b64([]byte(`["alg"]`)) + ".e30.x", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := headerAlg(tt.token)
			if (err != nil) != tt.wantErr {
				t.Fatalf("headerAlg() error = %v, wantErr %v", err, tt.wantErr)
			}
			if got != tt.want {
				t.Fatalf("headerAlg() = %q, want %q", got, tt.want)
			}
		})
	}
}
