package identity

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"log/slog"
	"maps"
	"math/big"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	accessports "github.com/acme3pl/fulfillment/ports/access"
)

// Test keys are made once per test binary: RSA key generation is the slow
// part of these tests, especially under -race.
var (
	rsaKeyA = sync.OnceValue(func() *rsa.PrivateKey { return mustRSA(2048) })
	rsaKeyB = sync.OnceValue(func() *rsa.PrivateKey { return mustRSA(2048) })
	rsaWeak = sync.OnceValue(func() *rsa.PrivateKey { return mustRSA(1024) })
	ecKey1  = sync.OnceValue(func() *ecdsa.PrivateKey { return mustEC(elliptic.P256()) })
	ecKey2  = sync.OnceValue(func() *ecdsa.PrivateKey { return mustEC(elliptic.P256()) })
	ecP384  = sync.OnceValue(func() *ecdsa.PrivateKey { return mustEC(elliptic.P384()) })
)

func mustRSA(bits int) *rsa.PrivateKey {
	k, err := rsa.GenerateKey(rand.Reader, bits)
	if err != nil {
		panic(err)
	}
	return k
}

func mustEC(c elliptic.Curve) *ecdsa.PrivateKey {
	k, err := ecdsa.GenerateKey(c, rand.Reader)
	if err != nil {
		panic(err)
	}
	return k
}

const (
	testIssuer   = "https://idp.example.com/"
	testAudience = "fulfillment-api"
)

var testSecret = []byte("a-shared-secret-of-at-least-32-bytes!")

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// rsaJWK, ecJWK and octJWK build JWKS members by hand, independently of the
// library under test.
func rsaJWK(kid string, pub *rsa.PublicKey, extra map[string]any) map[string]any {
	m := map[string]any{
		"kty": "RSA", "kid": kid,
		"n": b64(pub.N.Bytes()),
		"e": b64(big.NewInt(int64(pub.E)).Bytes()),
	}
	maps.Copy(m, extra)
	return m
}

func ecJWK(kid string, pub *ecdsa.PublicKey, extra map[string]any) map[string]any {
	point, err := pub.Bytes() // 0x04 || X || Y
	if err != nil {
		panic(err)
	}
	size := (len(point) - 1) / 2
	crv := map[int]string{32: "P-256", 48: "P-384"}[size]
	m := map[string]any{
		"kty": "EC", "kid": kid, "crv": crv,
		"x": b64(point[1 : 1+size]),
		"y": b64(point[1+size:]),
	}
	maps.Copy(m, extra)
	return m
}

func octJWK(kid string, secret []byte) map[string]any {
	return map[string]any{"kty": "oct", "kid": kid, "k": b64(secret)}
}

// rsaPublicPEM is what an attacker has: the IdP's public key, as PEM.
func rsaPublicPEM(pub *rsa.PublicKey) []byte {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		panic(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
}

// jwksServer serves a JWK Set that tests can swap, and counts fetches.
type jwksServer struct {
	srv     *httptest.Server
	mu      sync.Mutex
	body    []byte
	status  int
	fetches int
}

func newJWKSServer(t *testing.T, keys ...map[string]any) *jwksServer {
	t.Helper()
	s := &jwksServer{status: http.StatusOK}
	s.setKeys(keys...)
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		s.mu.Lock()
		s.fetches++
		status, body := s.status, s.body
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		if status == http.StatusOK {
			_, _ = w.Write(body)
		}
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *jwksServer) url() string { return s.srv.URL + "/.well-known/jwks.json" }

func (s *jwksServer) setKeys(keys ...map[string]any) {
	body, err := json.Marshal(map[string]any{"keys": keys})
	if err != nil {
		panic(err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.body = body
}

func (s *jwksServer) setStatus(code int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.status = code
}

func (s *jwksServer) fetchCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.fetches
}

// syncBuffer is a log sink safe for the refresh goroutine and the test.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// testJWKSOptions: keys fetched quickly, no background refresh within a
// test's lifetime, and one on-demand refresh (the limiter's burst) per
// verifier, so that tests decide exactly when keys are fetched.
var testJWKSOptions = jwksOptions{
	fetchTimeout:    2 * time.Second,
	refreshInterval: time.Hour,
	unknownKIDEvery: time.Hour,
}

// newVerifier builds a verifier that is closed when the test ends, logging
// into the returned buffer.
func newVerifier(t *testing.T, cfg TokenConfig, opts jwksOptions) (*TokenVerifier, *syncBuffer) {
	t.Helper()
	logs := &syncBuffer{}
	cfg.Logger = slog.New(slog.NewTextHandler(logs, nil))
	v, err := newTokenVerifier(context.Background(), cfg, nil, opts)
	if err != nil {
		t.Fatalf("newTokenVerifier: %v", err)
	}
	t.Cleanup(v.Close)
	return v, logs
}

// claims are valid claims at now for testIssuer/testAudience; tests change
// one thing at a time with with/without.
func claims(now time.Time) jwt.MapClaims {
	return jwt.MapClaims{
		"iss":    testIssuer,
		"aud":    testAudience,
		"sub":    "user_1",
		"org_id": "org_acme",
		"scope":  "invoices shipments",
		"iat":    now.Unix(),
		"nbf":    now.Unix(),
		"exp":    now.Add(time.Hour).Unix(),
	}
}

func with(c jwt.MapClaims, kv ...any) jwt.MapClaims {
	out := maps.Clone(c)
	for i := 0; i < len(kv); i += 2 {
		out[kv[i].(string)] = kv[i+1]
	}
	return out
}

func without(c jwt.MapClaims, keys ...string) jwt.MapClaims {
	out := maps.Clone(c)
	for _, k := range keys {
		delete(out, k)
	}
	return out
}

// sign signs c with method and key, with a kid header unless kid is "".
func sign(method jwt.SigningMethod, key any, kid string, c jwt.MapClaims) string {
	tok := jwt.NewWithClaims(method, c)
	if kid != "" {
		tok.Header["kid"] = kid
	}
	s, err := tok.SignedString(key)
	if err != nil {
		panic(err)
	}
	return s
}

// craft assembles a token by hand: any header, any claims, any signature
// function over the signing input. This is how an attacker builds tokens.
func craft(header map[string]any, c jwt.MapClaims, sig func(input string) []byte) string {
	h, err := json.Marshal(header)
	if err != nil {
		panic(err)
	}
	p, err := json.Marshal(c)
	if err != nil {
		panic(err)
	}
	input := b64(h) + "." + b64(p)
	return input + "." + b64(sig(input))
}

func hmacSig(key []byte) func(string) []byte {
	return func(input string) []byte {
		m := hmac.New(sha256.New, key)
		m.Write([]byte(input))
		return m.Sum(nil)
	}
}

func noSig(string) []byte { return nil }

// verifyCase is a token and what verifying it must give: the principal
// want, or an error that wraps wantErr.
type verifyCase struct {
	name    string
	token   string
	want    accessports.Principal
	wantErr error
}

// checkVerifyCases runs checkVerify on each case, as a subtest of its name.
func checkVerifyCases(t *testing.T, v *TokenVerifier, cases []verifyCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			checkVerify(t, v, tt.token, tt.want, tt.wantErr)
		})
	}
}

// checkVerify runs one verification and compares it with want / wantErr.
// Every refusal must wrap accessports.ErrInvalidCredentials, and, when wantErr is
// more specific, that too; no error may quote the token.
func checkVerify(t *testing.T, v *TokenVerifier, token string, want accessports.Principal, wantErr error) {
	t.Helper()
	got, err := v.VerifyAccessToken(context.Background(), token)
	if wantErr != nil {
		if err == nil {
			t.Fatalf("VerifyAccessToken() = %+v, want error %v", got, wantErr)
		}
		if !errors.Is(err, accessports.ErrInvalidCredentials) {
			t.Fatalf("error %q does not wrap ErrInvalidCredentials", err)
		}
		if !errors.Is(err, wantErr) {
			t.Fatalf("error %q, want it to wrap %q", err, wantErr)
		}
		if len(token) > 20 && containsAny(err.Error(), token) {
			t.Fatalf("error %q quotes the token", err)
		}
		return
	}
	if err != nil {
		t.Fatalf("VerifyAccessToken() error = %v", err)
	}
	if got.OrganizationID != want.OrganizationID || got.Subject != want.Subject || !slices.Equal(got.Scopes, want.Scopes) {
		t.Fatalf("VerifyAccessToken() = %+v, want %+v", got, want)
	}
}

// containsAny reports whether msg contains any of the token's segments.
func containsAny(msg, token string) bool {
	for _, seg := range bytes.Split([]byte(token), []byte(".")) {
		if len(seg) >= 8 && bytes.Contains([]byte(msg), seg) {
			return true
		}
	}
	return false
}
