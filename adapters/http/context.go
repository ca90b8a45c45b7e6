package httpapi

import (
	"context"

	"github.com/acme3pl/fulfillment/ports"
)

type principalKey struct{}

func contextWithRoute(ctx context.Context, route *string) context.Context {
	return context.WithValue(ctx, routeKey{}, route)
}

func routeFromContext(ctx context.Context) *string {
	p, _ := ctx.Value(routeKey{}).(*string)
	return p
}

func contextWithPrincipal(ctx context.Context, p ports.Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// PrincipalFrom returns the authenticated caller; handlers behind
// RequireScope always have one.
func PrincipalFrom(ctx context.Context) ports.Principal {
	p, _ := ctx.Value(principalKey{}).(ports.Principal)
	return p
}
