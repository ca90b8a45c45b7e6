package identity

// Tests of token verification against an identity provider's JWKS: key
// selection, rotation, background refresh, Close and an identity provider that
// is down.

import (
	"context"
	"crypto/ecdsa"
	"crypto/rsa"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/MicahParks/jwkset"
	"github.com/golang-jwt/jwt/v5"

	"github.com/acme3pl/fulfillment/domain"
	accessports "github.com/acme3pl/fulfillment/ports/access"
)

// idpKeys is the JWKS of the tests: usable RSA and EC keys, and keys that
// must never verify a token (a symmetric key, an encryption key, a weak RSA
// key, a P-384 key).
func idpKeys() []map[string]any {
	return []map[string]any{
		rsaJWK("rsa-a", &rsaKeyA().PublicKey, map[string]any{"alg": "RS256", "use": "sig"}),
		ecJWK("ec-1", &ecKey1().PublicKey, nil),
		octJWK("sym", testSecret),
		rsaJWK("rsa-enc", &rsaKeyB().PublicKey, map[string]any{"use": "enc"}),
		rsaJWK("rsa-weak", &rsaWeak().PublicKey, nil),
		ecJWK("ec-384", &ecP384().PublicKey, nil),
	}
}

// rsaAJWK is the JSON of rsa-a's JWK as the IdP publishes it: a key an
// attacker may try as an HMAC secret.
func rsaAJWK(t *testing.T) []byte {
	t.Helper()
	b, err := json.Marshal(idpKeys()[0])
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestVerifyJWKS(t *testing.T) {
	now := time.Now()
	c := claims(now)
	rsaA, ec1 := rsaKeyA(), ecKey1()
	jwkA := rsaAJWK(t)

	tests := []verifyCase{
		{name: "RS256", token: sign(jwt.SigningMethodRS256, rsaA, "rsa-a", c), want: acme},
		{name: "ES256", token: sign(jwt.SigningMethodES256, ec1, "ec-1", c), want: acme},
		{name: "RS256 without kid", token: sign(jwt.SigningMethodRS256, rsaA, "", c), want: acme},
		{name: "ES256 without kid", token: sign(jwt.SigningMethodES256, ec1, "", c), want: acme},
		{name: "ES256 with scp array", token: sign(jwt.SigningMethodES256, ec1, "ec-1", without(with(c, "scp", []string{"locations"}), "scope")),
			want: principalOf("org_acme", "user_1", domain.ScopeLocations)},

		{name: "RS256 expired", token: sign(jwt.SigningMethodRS256, rsaA, "rsa-a", with(c, "exp", now.Add(-time.Minute).Unix())), wantErr: jwt.ErrTokenExpired},
		{name: "RS256 missing exp", token: sign(jwt.SigningMethodRS256, rsaA, "rsa-a", without(c, "exp")), wantErr: jwt.ErrTokenRequiredClaimMissing},
		{name: "ES256 nbf in the future", token: sign(jwt.SigningMethodES256, ec1, "ec-1", with(c, "nbf", now.Add(time.Hour).Unix())), wantErr: jwt.ErrTokenNotValidYet},
		{name: "RS256 wrong aud", token: sign(jwt.SigningMethodRS256, rsaA, "rsa-a", with(c, "aud", "x")), wantErr: jwt.ErrTokenInvalidAudience},
		{name: "RS256 missing org", token: sign(jwt.SigningMethodRS256, rsaA, "rsa-a", without(c, "org_id")), wantErr: accessports.ErrInvalidCredentials},
		{name: "RS256 unknown kid", token: sign(jwt.SigningMethodRS256, rsaA, "nobody", c), wantErr: jwkset.ErrKeyNotFound},
		{name: "RS256 kid not a string", token: craft(map[string]any{"alg": "RS256", "kid": 7}, c, noSig), wantErr: accessports.ErrInvalidCredentials},
		{name: "RS256 signed by another key under a known kid", token: sign(jwt.SigningMethodRS256, rsaKeyB(), "rsa-a", c), wantErr: jwt.ErrTokenSignatureInvalid},
		{name: "RS256 signed by another key without kid", token: sign(jwt.SigningMethodRS256, rsaKeyB(), "", c), wantErr: jwt.ErrTokenSignatureInvalid},
		{name: "ES256 signed by another key", token: sign(jwt.SigningMethodES256, ecKey2(), "ec-1", c), wantErr: jwt.ErrTokenSignatureInvalid},
		{name: "RS256 with the kid of an EC key", token: sign(jwt.SigningMethodRS256, rsaA, "ec-1", c), wantErr: accessports.ErrInvalidCredentials},
		{name: "ES256 with the kid of an RSA key", token: sign(jwt.SigningMethodES256, ec1, "rsa-a", c), wantErr: accessports.ErrInvalidCredentials},
		{name: "RS256 with the kid of an encryption key", token: sign(jwt.SigningMethodRS256, rsaKeyB(), "rsa-enc", c), wantErr: accessports.ErrInvalidCredentials},
		{name: "RS256 with the kid of a 1024-bit key", token: sign(jwt.SigningMethodRS256, rsaWeak(), "rsa-weak", c), wantErr: accessports.ErrInvalidCredentials},
		{name: "PS256 with a JWKS key", token: sign(jwt.SigningMethodPS256, rsaA, "rsa-a", c), wantErr: accessports.ErrInvalidCredentials},
		{name: "RS512 with a JWKS key", token: sign(jwt.SigningMethodRS512, rsaA, "rsa-a", c), wantErr: accessports.ErrInvalidCredentials},
		{name: "alg none with a known kid", token: craft(map[string]any{"alg": "none", "kid": "rsa-a"}, c, noSig), wantErr: accessports.ErrInvalidCredentials},

		// Algorithm confusion, with no shared secret configured.
		{name: "HS256 keyed with the RSA public key PEM", token: sign(jwt.SigningMethodHS256, rsaPublicPEM(&rsaA.PublicKey), "rsa-a", c), wantErr: accessports.ErrInvalidCredentials},
		{name: "HS256 keyed with the RSA public JWK", token: sign(jwt.SigningMethodHS256, jwkA, "rsa-a", c), wantErr: accessports.ErrInvalidCredentials},
		{name: "HS256 keyed with the JWKS symmetric key", token: sign(jwt.SigningMethodHS256, testSecret, "sym", c), wantErr: accessports.ErrInvalidCredentials},
		{name: "RS256 header over an HMAC with the JWKS symmetric key", token: craft(map[string]any{"alg": "RS256", "kid": "sym"}, c, hmacSig(testSecret)), wantErr: accessports.ErrInvalidCredentials},
	}
	idp := newJWKSServer(t, idpKeys()...)
	v, _ := newVerifier(t, TokenConfig{JWKSURL: idp.url(), Issuer: testIssuer, Audience: testAudience}, testJWKSOptions)
	checkVerifyCases(t, v, tests)
}

// TestAlgorithmConfusionWithBothSources: with a shared secret and a JWKS both
// configured, a token can only ever be checked against the key source of its
// alg.
func TestAlgorithmConfusionWithBothSources(t *testing.T) {
	c := claims(time.Now())
	rsaA := rsaKeyA()
	pemA := rsaPublicPEM(&rsaA.PublicKey)
	jwkA := rsaAJWK(t)
	tests := []verifyCase{
		{name: "HS256 with the shared secret", token: sign(jwt.SigningMethodHS256, testSecret, "", c), want: acme},
		{name: "RS256 with a JWKS key", token: sign(jwt.SigningMethodRS256, rsaA, "rsa-a", c), want: acme},
		{name: "ES256 with a JWKS key", token: sign(jwt.SigningMethodES256, ecKey1(), "ec-1", c), want: acme},

		{name: "HS256 keyed with the RSA public key PEM, JWKS kid", token: sign(jwt.SigningMethodHS256, pemA, "rsa-a", c), wantErr: jwt.ErrTokenSignatureInvalid},
		{name: "HS256 keyed with the RSA public key PEM, no kid", token: sign(jwt.SigningMethodHS256, pemA, "", c), wantErr: jwt.ErrTokenSignatureInvalid},
		{name: "HS256 keyed with the RSA public JWK", token: sign(jwt.SigningMethodHS256, jwkA, "rsa-a", c), wantErr: jwt.ErrTokenSignatureInvalid},
		{name: "HS256 keyed with the RSA modulus", token: sign(jwt.SigningMethodHS256, rsaA.N.Bytes(), "rsa-a", c), wantErr: jwt.ErrTokenSignatureInvalid},
		{name: "RS256 header over an HMAC with the shared secret, JWKS kid", token: craft(map[string]any{"alg": "RS256", "kid": "rsa-a"}, c, hmacSig(testSecret)), wantErr: jwt.ErrTokenSignatureInvalid},
		{name: "RS256 header over an HMAC with the shared secret, no kid", token: craft(map[string]any{"alg": "RS256"}, c, hmacSig(testSecret)), wantErr: jwt.ErrTokenSignatureInvalid},
		{name: "ES256 header over an HMAC with the shared secret", token: craft(map[string]any{"alg": "ES256"}, c, hmacSig(testSecret)), wantErr: accessports.ErrInvalidCredentials},
		{name: "RS256 header over an HMAC with the shared secret, kid of the symmetric JWK", token: craft(map[string]any{"alg": "RS256", "kid": "sym"}, c, hmacSig(testSecret)), wantErr: accessports.ErrInvalidCredentials},
	}
	idp := newJWKSServer(t, idpKeys()...)
	v, _ := newVerifier(t, TokenConfig{SigningKey: testSecret, JWKSURL: idp.url(), Issuer: testIssuer, Audience: testAudience}, testJWKSOptions)
	checkVerifyCases(t, v, tests)
}

// TestVerificationKey checks the rules a JWKS key must meet, one at a time.
func TestVerificationKey(t *testing.T) {
	tests := []struct {
		name    string
		jwk     map[string]any
		alg     string
		wantErr bool
	}{
		{name: "RSA for RS256", jwk: rsaJWK("k", &rsaKeyA().PublicKey, nil), alg: algRS256},
		{name: "RSA with use sig and alg RS256", jwk: rsaJWK("k", &rsaKeyA().PublicKey, map[string]any{"use": "sig", "alg": "RS256"}), alg: algRS256},
		{name: "P-256 for ES256", jwk: ecJWK("k", &ecKey1().PublicKey, nil), alg: algES256},
		{name: "RSA for ES256", jwk: rsaJWK("k", &rsaKeyA().PublicKey, nil), alg: algES256, wantErr: true},
		{name: "P-256 for RS256", jwk: ecJWK("k", &ecKey1().PublicKey, nil), alg: algRS256, wantErr: true},
		{name: "P-384 for ES256", jwk: ecJWK("k", &ecP384().PublicKey, nil), alg: algES256, wantErr: true},
		{name: "RSA 1024 bits", jwk: rsaJWK("k", &rsaWeak().PublicKey, nil), alg: algRS256, wantErr: true},
		{name: "RSA for encryption", jwk: rsaJWK("k", &rsaKeyA().PublicKey, map[string]any{"use": "enc"}), alg: algRS256, wantErr: true},
		{name: "RSA published for RS512", jwk: rsaJWK("k", &rsaKeyA().PublicKey, map[string]any{"alg": "RS512"}), alg: algRS256, wantErr: true},
		{name: "symmetric key for RS256", jwk: octJWK("k", testSecret), alg: algRS256, wantErr: true},
		{name: "symmetric key for ES256", jwk: octJWK("k", testSecret), alg: algES256, wantErr: true},
		{name: "symmetric key for HS256", jwk: octJWK("k", testSecret), alg: algHS256, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw, err := json.Marshal(tt.jwk)
			if err != nil {
				t.Fatal(err)
			}
			jwk, err := jwkset.NewJWKFromRawJSON(raw, jwkset.JWKMarshalOptions{Private: true}, jwkset.JWKValidateOptions{})
			if err != nil {
				t.Fatalf("NewJWKFromRawJSON: %v", err)
			}
			key, err := verificationKey(jwk, tt.alg)
			if (err != nil) != tt.wantErr {
				t.Fatalf("verificationKey() error = %v, wantErr %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			switch k := key.(type) {
			case *rsa.PublicKey:
				if !k.Equal(&rsaKeyA().PublicKey) {
					t.Fatal("verificationKey() returned another RSA key")
				}
			case *ecdsa.PublicKey:
				if !k.Equal(&ecKey1().PublicKey) {
					t.Fatal("verificationKey() returned another EC key")
				}
			default:
				t.Fatalf("verificationKey() returned a %T", key)
			}
		})
	}
}

// TestKeyRotation: the identity provider replaces key A by key B. A token
// naming B is accepted at once (refresh on unknown kid); A, no longer
// published, is refused; and made-up kids do not trigger more fetches.
func TestKeyRotation(t *testing.T) {
	c := claims(time.Now())
	tokenA := sign(jwt.SigningMethodRS256, rsaKeyA(), "key-a", c)
	tokenB := sign(jwt.SigningMethodRS256, rsaKeyB(), "key-b", c)
	tokenNobody := sign(jwt.SigningMethodRS256, rsaKeyB(), "nobody", c)

	idp := newJWKSServer(t, rsaJWK("key-a", &rsaKeyA().PublicKey, nil))
	v, _ := newVerifier(t, TokenConfig{JWKSURL: idp.url(), Issuer: testIssuer, Audience: testAudience}, testJWKSOptions)
	if got := idp.fetchCount(); got != 1 {
		t.Fatalf("fetches after start = %d, want 1", got)
	}

	checkVerify(t, v, tokenA, acme, nil)
	checkVerify(t, v, tokenB, accessports.Principal{}, jwkset.ErrKeyNotFound) // B not published yet: refused after one refresh
	if got := idp.fetchCount(); got != 2 {
		t.Fatalf("fetches after an unknown kid = %d, want 2", got)
	}

	// A second verifier, so that its on-demand refresh is still available.
	v2, _ := newVerifier(t, TokenConfig{JWKSURL: idp.url(), Issuer: testIssuer, Audience: testAudience}, testJWKSOptions)
	checkVerify(t, v2, tokenA, acme, nil)
	idp.setKeys(rsaJWK("key-b", &rsaKeyB().PublicKey, nil))
	before := idp.fetchCount()
	checkVerify(t, v2, tokenB, acme, nil)
	if got := idp.fetchCount() - before; got != 1 {
		t.Fatalf("fetches for the new kid = %d, want 1", got)
	}
	// Unknown now, and the on-demand refresh is spent: refused at once.
	checkVerify(t, v2, tokenA, accessports.Principal{}, accessports.ErrInvalidCredentials)
	checkVerify(t, v2, tokenNobody, accessports.Principal{}, accessports.ErrInvalidCredentials)
	if got := idp.fetchCount() - before; got != 1 {
		t.Fatalf("fetches after refusing unknown kids = %d, want still 1 (rate limited)", got)
	}
}

// TestBackgroundRefresh: keys the identity provider removes, or replaces
// under the same kid, stop being accepted without any token asking for a
// refresh, also for tokens the verifier remembers.
func TestBackgroundRefresh(t *testing.T) {
	c := claims(time.Now())
	tokenA := sign(jwt.SigningMethodRS256, rsaKeyA(), "key-a", c)
	tests := []struct {
		name, newKID string
		wantErr      error
	}{
		{name: "removed", newKID: "key-b", wantErr: accessports.ErrInvalidCredentials},
		{name: "replaced under its kid", newKID: "key-a", wantErr: jwt.ErrTokenSignatureInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tokenB := sign(jwt.SigningMethodRS256, rsaKeyB(), tt.newKID, c)
			idp := newJWKSServer(t, rsaJWK("key-a", &rsaKeyA().PublicKey, nil))
			opts := testJWKSOptions
			opts.refreshInterval = 20 * time.Millisecond
			v, _ := newVerifier(t, TokenConfig{JWKSURL: idp.url()}, opts)
			checkVerify(t, v, tokenA, acme, nil)

			idp.setKeys(rsaJWK(tt.newKID, &rsaKeyB().PublicKey, nil))
			// Key A stays accepted from the cache until a background refresh drops it.
			waitFor(t, 5*time.Second, func() bool {
				_, err := v.VerifyAccessToken(context.Background(), tokenA)
				return err != nil
			})
			checkVerify(t, v, tokenA, accessports.Principal{}, tt.wantErr)
			checkVerify(t, v, tokenB, acme, nil)
		})
	}
}

func TestCloseStopsBackgroundRefresh(t *testing.T) {
	tests := []struct {
		name string
		stop func(v *TokenVerifier, cancel context.CancelFunc)
	}{
		{name: "Close", stop: func(v *TokenVerifier, _ context.CancelFunc) { v.Close(); v.Close() }},
		{name: "context cancelled", stop: func(_ *TokenVerifier, cancel context.CancelFunc) { cancel() }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			token := sign(jwt.SigningMethodRS256, rsaKeyA(), "key-a", claims(time.Now()))
			idp := newJWKSServer(t, rsaJWK("key-a", &rsaKeyA().PublicKey, nil))
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			opts := testJWKSOptions
			opts.refreshInterval = 5 * time.Millisecond
			v, err := newTokenVerifier(ctx, TokenConfig{JWKSURL: idp.url(), Logger: slog.New(slog.DiscardHandler)}, nil, opts)
			if err != nil {
				t.Fatal(err)
			}
			defer v.Close()
			waitFor(t, 5*time.Second, func() bool { return idp.fetchCount() >= 3 }) // refreshing
			tt.stop(v, cancel)
			time.Sleep(20 * time.Millisecond) // let a refresh in flight finish
			stopped := idp.fetchCount()
			time.Sleep(50 * time.Millisecond) // ten intervals
			if got := idp.fetchCount(); got != stopped {
				t.Fatalf("fetches went on after stop: %d, then %d", stopped, got)
			}
			// Verification goes on from the cache.
			checkVerify(t, v, token, principalOf("org_acme", "user_1", domain.ScopeInvoices, domain.ScopeShipments), nil)
		})
	}
}

func TestCloseWithoutJWKS(t *testing.T) {
	v, err := NewTokenVerifier(context.Background(), TokenConfig{SigningKey: testSecret}, nil)
	if err != nil {
		t.Fatal(err)
	}
	v.Close()
	v.Close()
}

// TestIdentityProviderDown: a JWKS that cannot be fetched at start-up does
// not stop start-up; JWKS tokens are refused until the keys arrive, while
// HS256 tokens keep working.
func TestIdentityProviderDown(t *testing.T) {
	c := claims(time.Now())
	tokenRS := sign(jwt.SigningMethodRS256, rsaKeyA(), "key-a", c)
	tokenHS := sign(jwt.SigningMethodHS256, testSecret, "", c)

	t.Run("answers 503, then recovers", func(t *testing.T) {
		idp := newJWKSServer(t, rsaJWK("key-a", &rsaKeyA().PublicKey, nil))
		idp.setStatus(http.StatusServiceUnavailable)
		opts := testJWKSOptions
		opts.refreshInterval = 20 * time.Millisecond
		v, logs := newVerifier(t, TokenConfig{SigningKey: testSecret, JWKSURL: idp.url()}, opts)
		if !strings.Contains(logs.String(), "JWKS fetch failed") {
			t.Fatalf("logs %q do not report the failed fetch", logs.String())
		}
		checkVerify(t, v, tokenRS, accessports.Principal{}, accessports.ErrInvalidCredentials)
		checkVerify(t, v, tokenHS, acme, nil)

		idp.setStatus(http.StatusOK)
		waitFor(t, 5*time.Second, func() bool {
			_, err := v.VerifyAccessToken(context.Background(), tokenRS)
			return err == nil
		})
	})

	t.Run("answers 503, a token brings the keys once it is back", func(t *testing.T) {
		idp := newJWKSServer(t, rsaJWK("key-a", &rsaKeyA().PublicKey, nil))
		idp.setStatus(http.StatusServiceUnavailable)
		v, _ := newVerifier(t, TokenConfig{JWKSURL: idp.url()}, testJWKSOptions)
		idp.setStatus(http.StatusOK)
		checkVerify(t, v, tokenRS, acme, nil) // the unknown kid fetches the keys
	})

	t.Run("refuses connections, secrets stay out of the logs", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		v, logs := newVerifier(t, TokenConfig{SigningKey: testSecret, JWKSURL: "http://user:hunter2@" + addr + "/jwks"}, testJWKSOptions)
		checkVerify(t, v, tokenRS, accessports.Principal{}, accessports.ErrInvalidCredentials)
		checkVerify(t, v, tokenHS, acme, nil)
		out := logs.String()
		if !strings.Contains(out, "JWKS fetch failed") {
			t.Fatalf("logs %q do not report the failed fetch", out)
		}
		if strings.Contains(out, "hunter2") || strings.Contains(out, string(testSecret)) || strings.Contains(out, tokenRS) {
			t.Fatalf("logs %q leak a secret", out)
		}
	})

	t.Run("hangs: start-up waits at most the fetch timeout", func(t *testing.T) {
		release := make(chan struct{})
		idp := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}))
		t.Cleanup(idp.Close)
		t.Cleanup(func() { close(release) }) // runs before idp.Close
		opts := testJWKSOptions
		opts.fetchTimeout = 100 * time.Millisecond
		start := time.Now()
		v, _ := newVerifier(t, TokenConfig{JWKSURL: idp.URL}, opts)
		if elapsed := time.Since(start); elapsed > 2*time.Second {
			t.Fatalf("start-up took %s with a hanging identity provider", elapsed)
		}
		start = time.Now()
		checkVerify(t, v, tokenRS, accessports.Principal{}, accessports.ErrInvalidCredentials)
		if elapsed := time.Since(start); elapsed > 2*time.Second {
			t.Fatalf("verification took %s with a hanging identity provider", elapsed)
		}
	})
}

// TestJWKSUsesGivenClient: the JWKS is fetched with the caller's client
// (proxies, TLS roots, instrumentation).
func TestJWKSUsesGivenClient(t *testing.T) {
	idp := newJWKSServer(t, rsaJWK("key-a", &rsaKeyA().PublicKey, nil))
	var calls atomic.Int32
	client := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		calls.Add(1)
		return http.DefaultTransport.RoundTrip(r)
	})}
	v, err := newTokenVerifier(context.Background(), TokenConfig{JWKSURL: idp.url(), Logger: slog.New(slog.DiscardHandler)}, client, testJWKSOptions)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	if calls.Load() == 0 {
		t.Fatal("the given HTTP client was not used")
	}
	checkVerify(t, v, sign(jwt.SigningMethodRS256, rsaKeyA(), "key-a", claims(time.Now())), acme, nil)
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// waitFor polls cond until it holds or the timeout ends the test.
func waitFor(t *testing.T, timeout time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("condition not met within %s", timeout)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
