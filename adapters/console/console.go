package console

import (
	"context"
	"net/http"

	"github.com/gorilla/mux"

	"github.com/acme3pl/fulfillment/domain/audit"
	"github.com/acme3pl/fulfillment/domain/operator"
)

// Routes is implemented by every group of pages and actions; the router is
// built from all of them.
type Routes interface {
	Register(r *mux.Router, g Guard)
}

// Guard puts a page or an action behind a session and a role.
type Guard interface {
	// Page answers a request without a session with a redirect to sign in
	// (303), and one whose role does not include need with 403; else h
	// runs with the principal in its context (PrincipalFrom).
	Page(need operator.Role, h http.HandlerFunc) http.Handler
	// Action is Page for a POST of a form: without the role it answers 403,
	// does nothing, and records the refusal in the audit log as action
	// with the outcome forbidden.
	Action(need operator.Role, action audit.Action, h http.HandlerFunc) http.Handler
}

type principalKey struct{}

// WithPrincipal is ctx carrying the signed-in principal.
func WithPrincipal(ctx context.Context, p operator.Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// PrincipalFrom is the signed-in principal of a request behind a Guard.
func PrincipalFrom(ctx context.Context) (operator.Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(operator.Principal)
	return p, ok
}
