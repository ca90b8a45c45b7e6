package identity

import (
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	accessports "github.com/acme3pl/fulfillment/ports/access"
)

// TestRememberedTokenIsNotVerifiedAgain: a token accepted once is accepted
// again without a parse (which allocates some ninety times), except a JWKS
// token without a kid.
func TestRememberedTokenIsNotVerifiedAgain(t *testing.T) {
	c := claims(time.Now())
	idp := newJWKSServer(t, idpKeys()...)
	v, _ := newVerifier(t, TokenConfig{SigningKey: testSecret, JWKSURL: idp.url(), Issuer: testIssuer, Audience: testAudience}, testJWKSOptions)
	tests := []struct {
		name       string
		token      string
		remembered bool
	}{
		{"HS256", sign(jwt.SigningMethodHS256, testSecret, "", c), true},
		{"RS256 with a kid", sign(jwt.SigningMethodRS256, rsaKeyA(), "rsa-a", c), true},
		{"ES256 without a kid", sign(jwt.SigningMethodES256, ecKey1(), "", c), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkVerify(t, v, tt.token, acme, nil)
			allocs := testing.AllocsPerRun(20, func() { checkVerify(t, v, tt.token, acme, nil) })
			if remembered := allocs <= 15; remembered != tt.remembered {
				t.Fatalf("a second verification allocates %.0f times: remembered = %t, want %t", allocs, remembered, tt.remembered)
			}
		})
	}
}

// TestRememberedTokenExpires: the cache keeps a token no longer than the
// parser would accept it (exp plus the leeway).
func TestRememberedTokenExpires(t *testing.T) {
	now := time.Now().Truncate(time.Second)
	v, _ := newVerifier(t, TokenConfig{SigningKey: testSecret, Issuer: testIssuer, Audience: testAudience, Leeway: 30 * time.Second}, testJWKSOptions)
	clock := now
	v.now = func() time.Time { return clock }
	token := sign(jwt.SigningMethodHS256, testSecret, "", with(claims(now), "exp", now.Add(time.Minute).Unix()))

	checkVerify(t, v, token, acme, nil)
	clock = now.Add(time.Minute + 29*time.Second) // past exp, within the leeway
	checkVerify(t, v, token, acme, nil)
	clock = now.Add(time.Minute + 30*time.Second)
	checkVerify(t, v, token, accessports.Principal{}, jwt.ErrTokenExpired)
}
