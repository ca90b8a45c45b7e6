package console

import (
	"context"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"github.com/acme3pl/fulfillment/domain/operator"
)

// OIDCConfig is the console's OpenID Connect client: the provider's
// issuer, the client's ID and secret (none: a public client, PKCE alone),
// the claim that lists a person's roles, and the console's callback URL as
// registered with the provider.
type OIDCConfig struct {
	Issuer       string
	ClientID     string
	ClientSecret string
	RolesClaim   string
	RedirectURL  string
	// HTTPClient talks to the provider (discovery, keys, token, userinfo).
	HTTPClient *http.Client
}

// OIDC signs people in by the authorization code flow with PKCE (S256),
// state and nonce, and reads who they are from the verified ID token. The
// provider's discovery document is fetched at the first sign-in (and again
// after a failure), so a provider that is down does not stop the service
// starting; go-oidc fetches and caches its keys.
type OIDC struct {
	cfg OIDCConfig

	mu       sync.Mutex
	provider *oidc.Provider
}

// NewOIDC returns the client of cfg.
func NewOIDC(cfg OIDCConfig) *OIDC {
	if cfg.RolesClaim == "" {
		cfg.RolesClaim = "roles"
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: 10 * time.Second}
	}
	return &OIDC{cfg: cfg}
}

// scopes are what the console asks the provider for: the ID token, the
// e-mail, and the profile (where providers commonly put roles and groups).
var scopes = []string{oidc.ScopeOpenID, "email", "profile"}

func (o *OIDC) discover(ctx context.Context) (*oidc.Provider, oauth2.Config, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.provider == nil {
		p, err := oidc.NewProvider(oidc.ClientContext(ctx, o.cfg.HTTPClient), o.cfg.Issuer)
		if err != nil {
			return nil, oauth2.Config{}, fmt.Errorf("the OpenID provider's discovery: %w", err)
		}
		o.provider = p
	}
	return o.provider, oauth2.Config{
		ClientID: o.cfg.ClientID, ClientSecret: o.cfg.ClientSecret, RedirectURL: o.cfg.RedirectURL,
		Endpoint: o.provider.Endpoint(), Scopes: scopes,
	}, nil
}

// signInState is a sign-in under way, kept in the browser's sign-in
// cookie between /login and the provider's redirect back.
type signInState struct {
	State    string `json:"s"`
	Nonce    string `json:"n"`
	Verifier string `json:"v"`
}

func (s signInState) encode() string {
	b, _ := json.Marshal(s)
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeSignInState(v string) (signInState, bool) {
	b, err := base64.RawURLEncoding.DecodeString(v)
	var s signInState
	if err != nil || json.Unmarshal(b, &s) != nil || s.State == "" || s.Nonce == "" || s.Verifier == "" {
		return signInState{}, false
	}
	return s, true
}

// start begins a sign-in: the state to keep and the provider's
// authorization URL to send the browser to.
func (o *OIDC) start(ctx context.Context) (signInState, string, error) {
	_, conf, err := o.discover(ctx)
	if err != nil {
		return signInState{}, "", err
	}
	state, err := operator.NewSecret()
	if err != nil {
		return signInState{}, "", err
	}
	nonce, err := operator.NewSecret()
	if err != nil {
		return signInState{}, "", err
	}
	s := signInState{State: state, Nonce: nonce, Verifier: oauth2.GenerateVerifier()}
	return s, conf.AuthCodeURL(state, oidc.Nonce(nonce), oauth2.S256ChallengeOption(s.Verifier)), nil
}

// errSignIn is a sign-in the provider or the browser got wrong: a state
// that does not match, an error from the provider, a code it does not
// take back, an ID token that does not verify or whose nonce differs.
var errSignIn = errors.New("the sign-in did not complete")

// finish completes a sign-in: the code exchanged with the PKCE verifier,
// the ID token verified (issuer, audience, expiry, signature) and its
// nonce checked; the principal is its subject, e-mail and the highest role
// of the roles claim (of the ID token, else of the userinfo endpoint's
// answer). A principal with no known role has NoRole.
func (o *OIDC) finish(ctx context.Context, s signInState, state, code string) (operator.Principal, error) {
	if subtle.ConstantTimeCompare([]byte(state), []byte(s.State)) != 1 || code == "" {
		return operator.Principal{}, fmt.Errorf("%w: the state does not match", errSignIn)
	}
	provider, conf, err := o.discover(ctx)
	if err != nil {
		return operator.Principal{}, err
	}
	ctx = oidc.ClientContext(ctx, o.cfg.HTTPClient)
	tok, err := conf.Exchange(ctx, code, oauth2.VerifierOption(s.Verifier))
	if err != nil {
		return operator.Principal{}, fmt.Errorf("%w: the code exchange: %w", errSignIn, err)
	}
	raw, ok := tok.Extra("id_token").(string)
	if !ok {
		return operator.Principal{}, fmt.Errorf("%w: no ID token", errSignIn)
	}
	idt, err := provider.Verifier(&oidc.Config{ClientID: o.cfg.ClientID}).Verify(ctx, raw)
	if err != nil {
		return operator.Principal{}, fmt.Errorf("%w: the ID token: %w", errSignIn, err)
	}
	if subtle.ConstantTimeCompare([]byte(idt.Nonce), []byte(s.Nonce)) != 1 {
		return operator.Principal{}, fmt.Errorf("%w: the ID token's nonce does not match", errSignIn)
	}
	var claims map[string]any
	if err := idt.Claims(&claims); err != nil {
		return operator.Principal{}, fmt.Errorf("%w: the ID token's claims: %w", errSignIn, err)
	}
	if _, ok := claims[o.cfg.RolesClaim]; !ok {
		// Some providers keep a code flow's claims for userinfo.
		if info, err := provider.UserInfo(ctx, oauth2.StaticTokenSource(tok)); err == nil && info.Subject == idt.Subject {
			var more map[string]any
			if info.Claims(&more) == nil {
				for k, v := range more {
					if _, ok := claims[k]; !ok {
						claims[k] = v
					}
				}
			}
		}
	}
	email, _ := claims["email"].(string)
	return operator.Principal{Subject: idt.Subject, Email: email, Role: operator.HighestRole(roleNames(claims[o.cfg.RolesClaim]))}, nil
}

// roleNames reads a roles claim: a list of names, or one string of names
// separated by spaces or commas.
func roleNames(v any) []string {
	switch v := v.(type) {
	case []any:
		var out []string
		for _, e := range v {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	case string:
		return strings.FieldsFunc(v, func(r rune) bool { return r == ' ' || r == ',' })
	}
	return nil
}
