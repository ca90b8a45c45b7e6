package identity

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/golang-jwt/jwt/v5"
)

// DefaultMintSubject is the sub of minted tokens unless MintParams.Subject
// says otherwise.
const DefaultMintSubject = "cli"

// reservedClaims may not be used as the organization claim of a minted token:
// the minter writes them itself, and a collision would silently drop one.
var reservedClaims = []string{"iss", "sub", "aud", "exp", "nbf", "iat", "jti", "scope", "scp"}

// MintParams describe one token to mint.
type MintParams struct {
	// Exactly one of Organization and Warehouse names whose token it is.
	Organization string
	Warehouse    string
	Scopes       []string
	TTL          time.Duration
	// Subject is the token's sub; empty means DefaultMintSubject.
	Subject string
	// Now is the issue time; the zero value means time.Now().
	Now time.Time
}

// MintToken signs an HS256 access token with cfg.SigningKey, carrying the
// claims a TokenVerifier built from the same cfg accepts: the organization in
// cfg's organization claim, "scope" (space-separated), sub, iat, nbf, exp,
// a random jti, and iss/aud when cfg sets them. cfg.JWKSURL is ignored: this
// service can only mint with the shared secret.
func MintToken(cfg TokenConfig, p MintParams) (string, error) {
	if len(cfg.SigningKey) == 0 {
		return "", errors.New("mint token: no signing key is configured")
	}
	if (strings.TrimSpace(p.Organization) == "") == (strings.TrimSpace(p.Warehouse) == "") {
		return "", errors.New("mint token: exactly one of organization and warehouse must be given")
	}
	if p.TTL <= 0 {
		return "", fmt.Errorf("mint token: ttl %s is not positive", p.TTL)
	}
	idClaim, id := cfg.orgClaim(), p.Organization
	if p.Warehouse != "" {
		idClaim, id = cfg.warehouseClaim(), p.Warehouse
	}
	if slices.Contains(reservedClaims, idClaim) {
		return "", fmt.Errorf("mint token: claim %q is a claim the minter sets itself", idClaim)
	}
	for _, s := range p.Scopes {
		// A scope with white space would become two scopes once joined
		// (the verifier splits with strings.Fields, i.e. unicode.IsSpace).
		if s == "" || strings.ContainsFunc(s, unicode.IsSpace) {
			return "", fmt.Errorf("mint token: scope %q is empty or contains white space", s)
		}
	}
	now := p.Now
	if now.IsZero() {
		now = time.Now()
	}
	sub := p.Subject
	if sub == "" {
		sub = DefaultMintSubject
	}
	jti, err := randomID()
	if err != nil {
		return "", fmt.Errorf("mint token: %w", err)
	}

	claims := jwt.MapClaims{
		idClaim: id,
		"sub":   sub,
		"iat":   now.Unix(),
		"nbf":   now.Unix(),
		"exp":   now.Add(p.TTL).Unix(),
		"jti":   jti,
	}
	if len(p.Scopes) > 0 {
		claims["scope"] = strings.Join(p.Scopes, " ")
	}
	if cfg.Issuer != "" {
		claims["iss"] = cfg.Issuer
	}
	if cfg.Audience != "" {
		claims["aud"] = cfg.Audience
	}
	signed, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(cfg.SigningKey)
	if err != nil {
		return "", fmt.Errorf("mint token: sign: %w", err)
	}
	return signed, nil
}

// randomID is 128 random bits, base64url: unique enough for a jti.
func randomID() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("random jti: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}
