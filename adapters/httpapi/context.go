package httpapi

import (
	"context"
	"sync"

	"github.com/acme3pl/fulfillment/domain"
	accessports "github.com/acme3pl/fulfillment/ports/access"
)

type (
	principalKey struct{}
	recordKey    struct{}
)

// requestRecord is what the middleware outside the router learns from
// inside it, for the access log and the metrics: the route template the
// request matched and the kind of error it was answered with. A handler
// still running after its deadline was answered for may set it, hence the
// lock.
type requestRecord struct {
	mu        sync.Mutex
	route     string
	errorKind domain.Kind
}

func (rec *requestRecord) setRoute(route string) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	rec.route = route
}

// setError keeps the first error kind answered: the one the client got.
func (rec *requestRecord) setError(kind domain.Kind) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if rec.errorKind == "" {
		rec.errorKind = kind
	}
}

func (rec *requestRecord) get() (route string, errorKind domain.Kind) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return rec.route, rec.errorKind
}

func contextWithRecord(ctx context.Context, rec *requestRecord) context.Context {
	return context.WithValue(ctx, recordKey{}, rec)
}

// recordFrom returns the request's record; a throwaway one outside the
// middleware (unit tests of a single handler).
func recordFrom(ctx context.Context) *requestRecord {
	if rec, ok := ctx.Value(recordKey{}).(*requestRecord); ok {
		return rec
	}
	return &requestRecord{}
}

// RecordErrorKind records the kind of error a request was answered with,
// for the access log and the metrics, where the route answered it without
// ErrorMapper (NoteError records it too): a download whose client went away.
func RecordErrorKind(ctx context.Context, kind domain.Kind) {
	recordFrom(ctx).setError(kind)
}

func contextWithPrincipal(ctx context.Context, p accessports.Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// PrincipalFrom returns the authenticated caller; handlers behind
// RequireScope or RequireAPIKey always have one.
func PrincipalFrom(ctx context.Context) accessports.Principal {
	p, _ := ctx.Value(principalKey{}).(accessports.Principal)
	return p
}
