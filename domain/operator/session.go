package operator

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/acme3pl/fulfillment/domain"
)

// The session's and the sign-in link's rules (docs/console.md).
const (
	// IdleTimeout ends a session not used for that long.
	IdleTimeout = 30 * time.Minute
	// AbsoluteTimeout ends a session that long after it started, used or not.
	AbsoluteTimeout = 12 * time.Hour
	// DefaultLinkTTL is how long a sign-in link may be used when its
	// command names no --ttl.
	DefaultLinkTTL = 15 * time.Minute
	// MinLinkTTL and MaxLinkTTL bound a link's time to live: a link is a
	// bearer's key to the console until it is used.
	MinLinkTTL = time.Minute
	MaxLinkTTL = 24 * time.Hour
	// maxSubject is the longest subject or e-mail (the audit record's bound).
	maxSubject = 320
)

// ErrSignedOut: no session for the cookie's ID — never started, ended by
// logout, revoked, or past its idle or absolute timeout.
var ErrSignedOut = errors.New("signed out: no session, or it ended")

// ErrLinkRefused: a sign-in link that is unknown, already used, or past
// its time to live. The three are told apart to no one.
var ErrLinkRefused = errors.New("the sign-in link is unknown, used or expired")

// Session is a signed-in principal's session: its ID is the cookie's
// random value, of which only the hash (HashSecret) is stored.
type Session struct {
	Principal Principal
	Started   time.Time
	LastUsed  time.Time
}

// NewSession is p's session starting at now; p needs a subject and a role.
func NewSession(p Principal, now time.Time) (Session, error) {
	if err := checkPrincipal(p); err != nil {
		return Session{}, err
	}
	return Session{Principal: p, Started: now, LastUsed: now}, nil
}

// Expired tells a session that has ended by a timeout at now: idle for
// IdleTimeout, or started AbsoluteTimeout ago.
func (s Session) Expired(now time.Time) bool {
	return !now.Before(s.LastUsed.Add(IdleTimeout)) || !now.Before(s.Started.Add(AbsoluteTimeout))
}

// SignInLink is a one-time sign-in link (sandbox only): the principal it
// signs in and until when; its token, like a session's ID, is stored only
// as its hash.
type SignInLink struct {
	Principal Principal
	Created   time.Time
	Expires   time.Time
}

// NewSignInLink is a link for subject with the highest of roles, usable
// for ttl from now (0: DefaultLinkTTL). It refuses an empty or too long
// subject, roles naming none of the console's, and a ttl outside
// [MinLinkTTL, MaxLinkTTL].
func NewSignInLink(subject string, roles []string, ttl time.Duration, now time.Time) (SignInLink, error) {
	if ttl == 0 {
		ttl = DefaultLinkTTL
	}
	if ttl < MinLinkTTL || ttl > MaxLinkTTL {
		return SignInLink{}, domain.Invalid("ttl", "must be between %s and %s", MinLinkTTL, MaxLinkTTL)
	}
	for _, r := range roles {
		if _, ok := ParseRole(strings.TrimSpace(r)); !ok {
			return SignInLink{}, domain.Invalid("roles", "%q is not a role (viewer, ops, billing, admin)", r)
		}
	}
	p := Principal{Subject: subject, Role: HighestRole(roles)}
	if err := checkPrincipal(p); err != nil {
		return SignInLink{}, err
	}
	return SignInLink{Principal: p, Created: now, Expires: now.Add(ttl)}, nil
}

// Usable tells a link not yet past its time to live at now (whether it was
// used is the store's to tell, atomically).
func (l SignInLink) Usable(now time.Time) bool { return now.Before(l.Expires) }

func checkPrincipal(p Principal) error {
	switch {
	case p.Subject == "" || strings.TrimSpace(p.Subject) != p.Subject:
		return domain.Invalid("subject", "must not be empty or start or end with spaces")
	case len(p.Subject) > maxSubject || len(p.Email) > maxSubject:
		return domain.Invalid("subject", "the subject and e-mail are at most %d bytes", maxSubject)
	case strings.ContainsAny(p.Subject, "\x00\r\n"):
		return domain.Invalid("subject", "must be one line of text")
	case p.Role == NoRole || p.Role.String() == "":
		return domain.Invalid("roles", "at least one of viewer, ops, billing, admin")
	}
	return nil
}

// NewSecret is a new random value for a cookie or a link: 32 bytes,
// base64url without padding (43 characters).
func NewSecret() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("random secret: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// HashSecret is the SHA-256 of a secret, the form it is stored in: the
// database never holds what a cookie or a link carries.
func HashSecret(secret string) []byte {
	h := sha256.Sum256([]byte(secret))
	return h[:]
}

// WellFormedSecret tells a value of NewSecret's form, so that anything
// else is refused without a look-up.
func WellFormedSecret(s string) bool {
	if len(s) != 43 {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(s)
	return err == nil
}
