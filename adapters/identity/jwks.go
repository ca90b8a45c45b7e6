package identity

// The JWKS half of TokenVerifier: the cached, self-refreshing key set of an
// external identity provider, and the choice of its key for a token.

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/MicahParks/jwkset"
	"github.com/MicahParks/keyfunc/v3"
	"github.com/golang-jwt/jwt/v5"
	"golang.org/x/time/rate"
)

// jwksOptions tune the JWKS cache. NewTokenVerifier uses defaultJWKSOptions;
// tests shorten them.
type jwksOptions struct {
	// fetchTimeout bounds every fetch, the first one included, so a hanging
	// identity provider delays start-up by at most this much.
	fetchTimeout time.Duration
	// refreshInterval is the period of the background refresh, which picks
	// up new keys and drops removed ones even when no token asks for them.
	refreshInterval time.Duration
	// unknownKIDEvery is the minimum time between two refreshes triggered by
	// a token whose kid is not in the cache. A request never waits for this
	// limiter longer than fetchTimeout: it is refused instead.
	unknownKIDEvery time.Duration
}

var defaultJWKSOptions = jwksOptions{
	fetchTimeout:    5 * time.Second,
	refreshInterval: 15 * time.Minute,
	unknownKIDEvery: time.Minute,
}

// startJWKS builds the cached, self-refreshing JWK Set. The refresh goroutine
// lives until ctx ends or stop is called.
func startJWKS(ctx context.Context, rawURL, shownURL string, client *http.Client, logger *slog.Logger, opts jwksOptions) (jwkset.Storage, context.CancelFunc, error) {
	lifetime, stop := context.WithCancel(ctx)
	noErrorOnFirstFetch := true
	kf, err := keyfunc.NewDefaultOverrideCtx(lifetime, []string{rawURL}, keyfunc.Override{
		Client:      client,
		HTTPTimeout: opts.fetchTimeout,
		// The first fetch failing is logged, not fatal (package doc).
		NoErrorReturnFirstHTTPReq: &noErrorOnFirstFetch,
		RefreshInterval:           opts.refreshInterval,
		// Burst 1: the first unknown kid refreshes at once (key rotation),
		// later ones at most every unknownKIDEvery.
		RefreshUnknownKID: rate.NewLimiter(rate.Every(opts.unknownKIDEvery), 1),
		// jwkset uses this both as the longest wait for the limiter and as
		// the deadline of the on-demand fetch.
		RateLimitWaitMax: opts.fetchTimeout,
		RefreshErrorHandlerFunc: func(string) func(context.Context, error) {
			return func(ctx context.Context, err error) {
				if lifetime.Err() != nil || errors.Is(err, context.Canceled) {
					// Close, shutdown or a caller gone: not the IdP's fault.
					// (ctx itself is no guide: jwkset cancels it before
					// reporting a failed first fetch.)
					return
				}
				logger.ErrorContext(ctx, "JWKS fetch failed; tokens signed by unknown keys are refused until a fetch succeeds",
					"jwks_url", shownURL, "error", err)
			}
		},
	})
	if err != nil {
		stop()
		return nil, nil, fmt.Errorf("token config: JWKS %q: %w", shownURL, err)
	}
	return kf.Storage(), stop, nil
}

// jwksKeyFunc finds the JWKS key for a token. With a kid, the cache is asked
// for it (an unknown kid triggers a rate-limited refresh: key rotation).
// Without one, every cached key that fits the alg is tried.
func (v *TokenVerifier) jwksKeyFunc(ctx context.Context) jwt.Keyfunc {
	return func(t *jwt.Token) (any, error) {
		alg := t.Method.Alg()
		if alg != algRS256 && alg != algES256 {
			return nil, fmt.Errorf("alg %s is not RS256 or ES256", alg)
		}
		if raw, ok := t.Header[jwkset.HeaderKID]; ok {
			kid, ok := raw.(string)
			if !ok || kid == "" {
				return nil, errors.New("kid is not a non-empty string")
			}
			jwk, err := v.jwks.KeyRead(ctx, kid)
			if err != nil {
				return nil, fmt.Errorf("JWKS key %q: %w", truncate(kid, 64), err)
			}
			return verificationKey(jwk, alg)
		}
		all, err := v.jwks.KeyReadAll(ctx)
		if err != nil {
			return nil, fmt.Errorf("JWKS keys: %w", err)
		}
		var set jwt.VerificationKeySet
		for _, jwk := range all {
			if k, err := verificationKey(jwk, alg); err == nil {
				set.Keys = append(set.Keys, k)
			}
		}
		if len(set.Keys) == 0 {
			return nil, fmt.Errorf("no JWKS key fits alg %s", alg)
		}
		return set, nil
	}
}

// verificationKey returns jwk's public key if it may verify alg: a signing
// key ("use" absent or "sig"), whose own "alg" (when present) is alg, of the
// type alg needs — never a symmetric key.
func verificationKey(jwk jwkset.JWK, alg string) (any, error) {
	m := jwk.Marshal()
	if m.USE != "" && m.USE != jwkset.UseSig {
		return nil, fmt.Errorf("JWKS key %q has use %q, not sig", m.KID, m.USE)
	}
	if m.ALG != "" && m.ALG.String() != alg {
		return nil, fmt.Errorf("JWKS key %q is for alg %s, not %s", m.KID, m.ALG, alg)
	}
	switch alg {
	case algRS256:
		pub, ok := publicKeyOf[*rsa.PublicKey](jwk.Key())
		if !ok {
			return nil, fmt.Errorf("JWKS key %q is not an RSA key", m.KID)
		}
		if pub.N.BitLen() < minRSABits {
			return nil, fmt.Errorf("JWKS key %q has %d bits, fewer than %d", m.KID, pub.N.BitLen(), minRSABits)
		}
		return pub, nil
	case algES256:
		pub, ok := publicKeyOf[*ecdsa.PublicKey](jwk.Key())
		if !ok {
			return nil, fmt.Errorf("JWKS key %q is not an EC key", m.KID)
		}
		if pub.Curve != elliptic.P256() {
			return nil, fmt.Errorf("JWKS key %q is not on P-256", m.KID)
		}
		return pub, nil
	}
	return nil, fmt.Errorf("alg %s has no JWKS key type", alg)
}

// publicKeyOf is key as a public key of type P: key itself, or the public
// half of a private key.
func publicKeyOf[P crypto.PublicKey](key any) (P, bool) {
	if private, ok := key.(crypto.Signer); ok {
		key = private.Public()
	}
	pub, ok := key.(P)
	return pub, ok
}
