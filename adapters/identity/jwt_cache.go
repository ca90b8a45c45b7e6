package identity

import (
	"context"
	"crypto/ecdsa"
	"crypto/rsa"
	"crypto/sha256"
	"time"

	"github.com/golang-jwt/jwt/v5"

	accessports "github.com/acme3pl/fulfillment/ports/access"
)

// A client sends the same access token with every request until it expires,
// and verifying it — two JSON decodes, an HMAC or an RSA/ECDSA signature —
// is a large share of a cheap read's work. So the verifier remembers
// the tokens it accepted, by their SHA-256 (never the token), until they
// expire (exp plus the leeway, when the parser would refuse them), in a
// bounded map. Refusals are not remembered.
//
// What verification depends on besides the token is the key: the HS256
// secret, which cannot change while the verifier lives, or a JWKS key, which
// the identity provider may withdraw or replace. A remembered JWKS token is
// therefore accepted only while the JWKS still holds, under the token's kid,
// the very key that verified it; otherwise it is verified afresh, and
// refused as it would be without the cache. A JWKS token without a kid
// (checked against every key that fits) is not remembered.

// verifiedToken is what the verifier remembers of a token it accepted.
type verifiedToken struct {
	principal accessports.Principal
	alg, kid  string // the token's alg and kid
	key       any    // the key that verified it: []byte for HS256, else a public key
}

// cached returns the principal of a token accepted before and still valid at
// now, if its key is still trusted.
func (v *TokenVerifier) cached(ctx context.Context, sum [sha256.Size]byte, now time.Time) (accessports.Principal, bool) {
	e, ok := v.verified.get(sum, now)
	if !ok {
		return accessports.Principal{}, false
	}
	if e.alg != algHS256 {
		jwk, err := v.jwks.KeyRead(ctx, e.kid)
		if err != nil {
			return accessports.Principal{}, false
		}
		key, err := verificationKey(jwk, e.alg)
		if err != nil || !samePublicKey(key, e.key) {
			return accessports.Principal{}, false
		}
	}
	return clonePrincipal(e.principal), true
}

// remember keeps an accepted token, with the key that verified it, until it
// expires.
func (v *TokenVerifier) remember(sum [sha256.Size]byte, claims jwt.MapClaims, p accessports.Principal, used verifiedToken) {
	exp, err := claims.GetExpirationTime()
	if err != nil || exp == nil {
		return // the parser requires exp; never cache a token without one
	}
	if used.alg != algHS256 {
		if _, isSet := used.key.(jwt.VerificationKeySet); isSet || used.kid == "" {
			return
		}
	}
	used.principal = clonePrincipal(p)
	v.verified.putUntil(sum, used, exp.Add(v.leeway))
}

// samePublicKey reports whether a and b are the same RSA or ECDSA public key.
func samePublicKey(a, b any) bool {
	switch a := a.(type) {
	case *rsa.PublicKey:
		b, ok := b.(*rsa.PublicKey)
		return ok && a.Equal(b)
	case *ecdsa.PublicKey:
		b, ok := b.(*ecdsa.PublicKey)
		return ok && a.Equal(b)
	}
	return false
}
