package identity

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/MicahParks/jwkset"
	"github.com/golang-jwt/jwt/v5"

	"github.com/acme3pl/fulfillment/domain"
	accessports "github.com/acme3pl/fulfillment/ports/access"
)

// DefaultOrgClaim is the claim that holds the organization ID unless
// TokenConfig.OrgClaim says otherwise.
const DefaultOrgClaim = "org_id"

// DefaultWarehouseClaim is the claim that holds a warehouse's ID unless
// TokenConfig.WarehouseClaim says otherwise.
const DefaultWarehouseClaim = "warehouse_id"

// MaxLeeway bounds TokenConfig.Leeway: leeway exists to absorb clock skew
// between the identity provider and this service, not to extend tokens.
const MaxLeeway = 5 * time.Minute

// The algorithms this service accepts, one key source each.
const (
	algHS256 = "HS256"
	algRS256 = "RS256"
	algES256 = "ES256"
)

// maxTokenBytes refuses absurd inputs before any base64 or JSON work. Real
// access tokens are a few hundred bytes to a few KiB.
const maxTokenBytes = 16 << 10

// minRSABits: RSA keys shorter than this are not trusted to sign tokens.
const minRSABits = 2048

// TokenConfig says which access tokens to trust. At least one of SigningKey
// and JWKSURL must be set.
type TokenConfig struct {
	// SigningKey is the HS256 shared secret (AUTH_SIGNING_KEY, its bytes as
	// they are). Empty: HS256 tokens are refused.
	SigningKey []byte
	// JWKSURL is the identity provider's JWK Set (AUTH_JWKS_URL), an
	// absolute http(s) URL. Empty: RS256/ES256 tokens are refused.
	JWKSURL string
	// Issuer and Audience, when set, must be exactly the token's iss and one
	// of its aud.
	Issuer, Audience string
	// OrgClaim names the claim that holds the organization ID
	// (AUTH_ORG_CLAIM); empty means DefaultOrgClaim.
	OrgClaim string
	// WarehouseClaim names the claim that holds a warehouse's ID
	// (AUTH_WAREHOUSE_CLAIM); empty means DefaultWarehouseClaim. A token
	// carries exactly one of the two claims.
	WarehouseClaim string
	// Leeway is the clock skew tolerated on exp, nbf and iat. The zero value
	// means none, which is right when the tokens are minted by this service
	// (same clock); a few seconds suit an external identity provider. It may
	// not be negative or exceed MaxLeeway.
	Leeway time.Duration
	// Logger receives JWKS fetch failures (never a token). Nil means
	// slog.Default().
	Logger *slog.Logger
}

func (c TokenConfig) orgClaim() string {
	if c.OrgClaim == "" {
		return DefaultOrgClaim
	}
	return c.OrgClaim
}

func (c TokenConfig) warehouseClaim() string {
	if c.WarehouseClaim == "" {
		return DefaultWarehouseClaim
	}
	return c.WarehouseClaim
}

// TokenVerifier verifies access tokens. It is safe for concurrent use.
type TokenVerifier struct {
	hmacKey    []byte
	hmacParser *jwt.Parser
	jwks       jwkset.Storage // nil without JWKSURL
	jwksParser *jwt.Parser
	orgClaim   string
	whClaim    string
	leeway     time.Duration
	stop       context.CancelFunc
	stopOnce   sync.Once

	now      func() time.Time // the clock of the parsers and of verified
	verified *shortCache[[sha256.Size]byte, verifiedToken]
}

var _ accessports.TokenVerifier = (*TokenVerifier)(nil)

// NewTokenVerifier checks cfg and, when cfg.JWKSURL is set, starts the JWKS
// cache: one fetch (at most a few seconds) now, then background refreshes
// with httpClient (nil means http.DefaultClient). A failed first fetch is
// logged, not returned: see the package documentation. ctx bounds the life of
// the background refresh, as does Close; pass a context that lives as long as
// the verifier (not a start-up timeout context).
func NewTokenVerifier(ctx context.Context, cfg TokenConfig, httpClient *http.Client) (*TokenVerifier, error) {
	return newTokenVerifier(ctx, cfg, httpClient, defaultJWKSOptions)
}

func newTokenVerifier(ctx context.Context, cfg TokenConfig, httpClient *http.Client, opts jwksOptions) (*TokenVerifier, error) {
	if len(cfg.SigningKey) == 0 && cfg.JWKSURL == "" {
		return nil, errors.New("token config: neither a signing key nor a JWKS URL is set")
	}
	if cfg.Leeway < 0 || cfg.Leeway > MaxLeeway {
		return nil, fmt.Errorf("token config: leeway %s is outside 0..%s", cfg.Leeway, MaxLeeway)
	}
	orgClaim, whClaim := cfg.orgClaim(), cfg.warehouseClaim()
	if strings.TrimSpace(orgClaim) != orgClaim {
		return nil, fmt.Errorf("token config: organization claim %q has surrounding white space", orgClaim)
	}
	if strings.TrimSpace(whClaim) != whClaim {
		return nil, fmt.Errorf("token config: warehouse claim %q has surrounding white space", whClaim)
	}
	if orgClaim == whClaim {
		return nil, fmt.Errorf("token config: the organization and warehouse claims are both %q", orgClaim)
	}

	v := &TokenVerifier{orgClaim: orgClaim, whClaim: whClaim, leeway: cfg.Leeway, stop: func() {}, now: time.Now,
		verified: newShortCache[[sha256.Size]byte, verifiedToken](0)}
	common := []jwt.ParserOption{
		jwt.WithTimeFunc(func() time.Time { return v.now() }),
		jwt.WithExpirationRequired(),
		jwt.WithIssuedAt(),
		jwt.WithLeeway(cfg.Leeway),
	}
	if cfg.Issuer != "" {
		common = append(common, jwt.WithIssuer(cfg.Issuer))
	}
	if cfg.Audience != "" {
		common = append(common, jwt.WithAudience(cfg.Audience))
	}

	if len(cfg.SigningKey) > 0 {
		// Copy: the caller's slice must not change the key under our feet.
		v.hmacKey = slices.Clone(cfg.SigningKey)
		v.hmacParser = jwt.NewParser(append(slices.Clone(common), jwt.WithValidMethods([]string{algHS256}))...)
	}
	if cfg.JWKSURL != "" {
		u, err := url.Parse(cfg.JWKSURL)
		if err != nil {
			// Not quoted: an unparsable URL cannot be redacted.
			return nil, errors.New("token config: the JWKS URL is not an absolute http(s) URL")
		}
		if (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return nil, fmt.Errorf("token config: JWKS URL %q is not an absolute http(s) URL", u.Redacted())
		}
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("token config: JWKS: %w", err)
		}
		logger := cfg.Logger
		if logger == nil {
			logger = slog.Default()
		}
		if httpClient == nil {
			httpClient = http.DefaultClient
		}
		storage, stop, err := startJWKS(ctx, cfg.JWKSURL, u.Redacted(), httpClient, logger, opts)
		if err != nil {
			return nil, err
		}
		v.jwks, v.stop = storage, stop
		v.jwksParser = jwt.NewParser(append(slices.Clone(common), jwt.WithValidMethods([]string{algRS256, algES256}))...)
	}
	return v, nil
}

// Close stops the background JWKS refresh (an fx OnStop hook). Tokens are
// still verified afterwards, from the cached keys. Close is idempotent.
func (v *TokenVerifier) Close() {
	v.stopOnce.Do(v.stop)
}

// VerifyAccessToken checks token and returns who it names. Every refusal
// wraps accessports.ErrInvalidCredentials.
func (v *TokenVerifier) VerifyAccessToken(ctx context.Context, token string) (accessports.Principal, error) {
	if token == "" {
		return accessports.Principal{}, invalid("empty token")
	}
	if len(token) > maxTokenBytes {
		return accessports.Principal{}, invalid("token longer than %d bytes", maxTokenBytes)
	}
	sum := sha256.Sum256([]byte(token))
	now := v.now()
	if p, ok := v.cached(ctx, sum, now); ok {
		return p, nil
	}
	alg, err := headerAlg(token)
	if err != nil {
		return accessports.Principal{}, invalid("malformed header: %v", err)
	}

	// The key source is chosen by the header's alg, and each source's parser
	// accepts only its own algorithms: no token can pick a key meant for
	// another algorithm.
	var (
		parser  *jwt.Parser
		keyFunc jwt.Keyfunc
	)
	switch alg {
	case algHS256:
		if v.hmacParser == nil {
			return accessports.Principal{}, invalid("alg HS256 but no signing key is configured")
		}
		parser, keyFunc = v.hmacParser, v.hmacKeyFunc
	case algRS256, algES256:
		if v.jwksParser == nil {
			return accessports.Principal{}, invalid("alg %s but no JWKS is configured", alg)
		}
		parser, keyFunc = v.jwksParser, v.jwksKeyFunc(ctx)
	default:
		return accessports.Principal{}, invalid("alg %q is not accepted", truncate(alg, 16))
	}

	// The key that verified the signature, remembered with the token.
	var used verifiedToken
	remember := func(t *jwt.Token) (any, error) {
		key, err := keyFunc(t)
		used.key, used.alg = key, alg
		used.kid, _ = t.Header[jwkset.HeaderKID].(string)
		return key, err
	}
	claims := jwt.MapClaims{}
	if _, err := parser.ParseWithClaims(token, claims, remember); err != nil {
		return accessports.Principal{}, fmt.Errorf("access token: %w: %w", accessports.ErrInvalidCredentials, err)
	}
	p, err := principal(claims, v.orgClaim, v.whClaim)
	if err != nil {
		return accessports.Principal{}, err
	}
	v.remember(sum, claims, p, used)
	return p, nil
}

func (v *TokenVerifier) hmacKeyFunc(t *jwt.Token) (any, error) {
	// The parser already refused other algorithms; checked again so that this
	// function can never hand the secret to another method.
	if t.Method.Alg() != algHS256 {
		return nil, fmt.Errorf("alg %s is not HS256", t.Method.Alg())
	}
	return v.hmacKey, nil
}

// headerAlg reads the alg of a compact JWS without trusting anything else.
// It decodes the header into a map, as the jwt parser does, so both see the
// same alg whatever duplicate or differently-cased members the header holds.
func headerAlg(token string) (string, error) {
	head, _, ok := strings.Cut(token, ".")
	if !ok {
		return "", errors.New("not a compact JWS")
	}
	raw, err := base64.RawURLEncoding.DecodeString(head)
	if err != nil {
		return "", errors.New("header is not base64url")
	}
	var h map[string]any
	if err := json.Unmarshal(raw, &h); err != nil {
		return "", errors.New("header is not a JSON object")
	}
	alg, ok := h["alg"].(string)
	if !ok {
		return "", errors.New("header has no alg string")
	}
	return alg, nil
}

// principal turns verified claims into a Principal: an organization's or a
// warehouse's, whichever of the two claims the token carries — never both,
// never neither.
func principal(c jwt.MapClaims, orgClaim, whClaim string) (accessports.Principal, error) {
	org, hasOrg, err := idClaim(c, orgClaim)
	if err != nil {
		return accessports.Principal{}, err
	}
	wh, hasWh, err := idClaim(c, whClaim)
	if err != nil {
		return accessports.Principal{}, err
	}
	if hasOrg == hasWh {
		return accessports.Principal{}, invalid("the token carries %s of the claims %q and %q, not exactly one",
			map[bool]string{true: "both", false: "neither"}[hasOrg], orgClaim, whClaim)
	}
	sub, err := c.GetSubject()
	if err != nil {
		return accessports.Principal{}, invalid("claim sub is not a string")
	}
	scopes, err := scopes(c)
	if err != nil {
		return accessports.Principal{}, err
	}
	return accessports.Principal{OrganizationID: org, WarehouseID: wh, Subject: sub, Scopes: scopes}, nil
}

// idClaim reads an ID claim: absent (or null) is not an error, anything but
// a non-empty string is.
func idClaim(c jwt.MapClaims, name string) (id string, present bool, err error) {
	v, ok := c[name]
	if !ok || v == nil {
		return "", false, nil
	}
	id, ok = v.(string)
	if !ok || strings.TrimSpace(id) == "" {
		return "", false, invalid("claim %q is not a non-empty string", name)
	}
	return id, true, nil
}

// scopes reads "scope" (a space-separated string, RFC 8693/9068) and "scp"
// (an array of strings as Okta writes it, or a space-separated string as
// Azure AD does). A token carrying both is granted the union. A claim of
// another type makes the token invalid rather than silently scope-less.
func scopes(c jwt.MapClaims) ([]domain.Scope, error) {
	var names []string
	switch s := c["scope"].(type) {
	case nil:
	case string:
		names = append(names, strings.Fields(s)...)
	default:
		return nil, invalid("claim scope is not a string")
	}
	switch s := c["scp"].(type) {
	case nil:
	case string:
		names = append(names, strings.Fields(s)...)
	case []any:
		for _, e := range s {
			str, ok := e.(string)
			if !ok {
				return nil, invalid("claim scp holds a non-string")
			}
			names = append(names, strings.Fields(str)...)
		}
	default:
		return nil, invalid("claim scp is neither a string nor an array")
	}
	out := make([]domain.Scope, 0, len(names))
	for _, n := range names {
		if !slices.Contains(out, domain.Scope(n)) {
			out = append(out, domain.Scope(n))
		}
	}
	return out, nil
}

// invalid makes a refusal: ErrInvalidCredentials with a reason for the logs.
func invalid(format string, args ...any) error {
	return fmt.Errorf("access token: %s: %w", fmt.Sprintf(format, args...), accessports.ErrInvalidCredentials)
}

// truncate keeps attacker-chosen header values short in error messages.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
