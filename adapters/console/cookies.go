package console

import (
	"net/http"
	"time"

	"github.com/acme3pl/fulfillment/domain/operator"
)

// The console's cookies. Both are __Host- prefixed (the browser keeps them
// for this origin only, over a secure connection, for every path: no other
// host or path can set or read them), Secure, HttpOnly (no script reads
// them) and SameSite=Lax (sent on a top-level navigation from elsewhere —
// the provider's redirect back, a bookmark — never on another site's form
// post or fetch). Browsers accept Secure cookies from http://127.0.0.1 and
// http://localhost, which they treat as secure contexts, so they stay
// Secure there too.
const (
	// sessionCookie holds a session's random ID only; the database holds
	// its hash.
	sessionCookie = "__Host-console_session"
	// signInCookie holds the OpenID Connect sign-in under way: its state,
	// nonce and PKCE verifier, for signInTTL.
	signInCookie = "__Host-console_signin"
	signInTTL    = 10 * time.Minute
)

func setCookie(w http.ResponseWriter, name, value string, maxAge time.Duration) {
	http.SetCookie(w, &http.Cookie{
		Name: name, Value: value, Path: "/", MaxAge: int(maxAge / time.Second),
		Secure: true, HttpOnly: true, SameSite: http.SameSiteLaxMode,
	})
}

func clearCookie(w http.ResponseWriter, name string) {
	http.SetCookie(w, &http.Cookie{Name: name, Value: "", Path: "/", MaxAge: -1,
		Secure: true, HttpOnly: true, SameSite: http.SameSiteLaxMode})
}

// setSessionCookie gives the browser the session's ID, kept no longer
// than the session's absolute timeout (the server ends it anyway).
func setSessionCookie(w http.ResponseWriter, id string) {
	setCookie(w, sessionCookie, id, operator.AbsoluteTimeout)
}

// sessionID is the request's session cookie's value, "" without one.
func sessionID(r *http.Request) string {
	c, err := r.Cookie(sessionCookie)
	if err != nil {
		return ""
	}
	return c.Value
}
