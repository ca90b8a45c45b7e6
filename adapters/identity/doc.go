// Package identity verifies who is calling: OAuth access tokens (JWTs) for
// the API, and API keys and webhook signatures for the storefront order
// intake. It implements ports.AccessTokenVerifier, ports.APIKeyVerifier and
// ports.StorefrontSignatureVerifier, and it mints the HS256 tokens printed by
// `fulfillment token mint` and the keys printed by `fulfillment apikey
// create`.
//
// # Access tokens
//
// A token is verified against exactly one key source, chosen from its
// header's alg before anything else is trusted:
//
//   - HS256: the shared secret TokenConfig.SigningKey, and nothing else.
//   - RS256, ES256: a public key of the JWKS at TokenConfig.JWKSURL, found by
//     the header's kid (or, without a kid, any JWKS key that fits the alg).
//   - anything else, "none" included: refused.
//
// Each source has its own parser restricted to its own algorithms
// (jwt.WithValidMethods), and each key function checks the alg again and
// returns only a key of the type that alg needs. This rules out the classic
// confusions: an HS256 token "signed" with the IdP's public key bytes is
// checked against the shared secret (and fails), an RS256 token is never
// checked against the shared secret, and a symmetric ("oct") key published in
// the JWKS is never used.
//
// Header members that point at keys (jku, x5u, jwk, x5c) are ignored: keys
// come from the configuration only.
//
// exp is required; nbf and iat are honoured (a token not yet valid is
// refused); iss and aud must match exactly when configured (aud may be a
// string or an array that contains the audience). The organization is the
// string claim named by TokenConfig.OrgClaim; scopes come from the
// space-separated "scope" claim and/or the "scp" claim (an array of strings,
// or a space-separated string).
//
// Every refusal wraps ports.ErrInvalidCredentials, with a reason meant for
// debug logs. The token itself never appears in an error or a log line.
//
// An accepted token is remembered by its SHA-256 until it expires, so that a
// client's next requests with it skip the parse and the signature check; a
// JWKS token only while the JWKS still holds the key that verified it under
// its kid (jwt_cache.go says why and what is not remembered).
//
// jwt.go holds all of this, and is longer than the service's other files on
// purpose: which key source a token's alg selects, and what each source
// accepts, is one security decision and is reviewed in one place.
//
// # JWKS availability
//
// Keys are fetched with keyfunc/jwkset, cached, refreshed in the background
// and refreshed on demand when a token names an unknown kid (at most once a
// minute, so a stream of made-up kids cannot hammer the identity provider).
// A failed first fetch does not fail start-up: it is logged and the service
// starts with an empty key cache, so JWKS tokens are answered invalid_token
// until the keys arrive (through the on-demand or the background refresh).
// An identity provider blip must not crash-loop every replica in Kubernetes;
// the HS256 path and the API keys keep working meanwhile. The first fetch is
// bounded (a few seconds) so a hanging identity provider cannot stall
// start-up either.
//
// # API keys
//
// An API key is fk_test_ (sandbox) or fk_live_ (production) followed by 40
// characters of [A-Za-z0-9] drawn uniformly from crypto/rand (about 238 bits).
// Only its SHA-256 is stored. A deployment serves one environment, and keys of
// the other one are refused before any database lookup. A verified key is
// trusted for APIKeyCacheTTL without a lookup.
//
// # Storefront webhook signatures
//
// An organization with a storefront webhook secret has every delivery
// signed: X-Shopify-Hmac-Sha256 must be the base64 HMAC-SHA256 of the raw
// body under the secret, compared in constant time; anything else wraps
// ports.ErrInvalidSignature. Organizations without a secret are not
// checked. The secret, or its absence, is read once per organization and
// WebhookSecretTTL.
package identity
