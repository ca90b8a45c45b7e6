package application

import (
	"context"
	"errors"
	"os"

	"github.com/acme3pl/fulfillment/domain"
)

// Refusals the HTTP adapter makes before a use case runs. They are declared
// here so that every error the service can answer has its kind.
var (
	// ErrPayloadTooLarge: the request body is over the route's limit.
	ErrPayloadTooLarge = domain.NewError(domain.KindTooLarge, "payload too large")
	// ErrUnsupportedMediaType: the request body is not application/json.
	ErrUnsupportedMediaType = domain.NewError(domain.KindUnsupportedMedia, "unsupported media type")
	// ErrOverloaded: the request was shed: more requests are in flight than
	// the database can serve within the request deadline.
	ErrOverloaded = domain.NewError(domain.KindShed, "overloaded")
)

// KindOf returns the kind of err; nil has none (""). The service's faults
// win wherever they are in err's chain, in this order: a client that went
// away before a shed request, a shed request before a timeout, a timeout
// (a deadline, or a lock not granted in time) before an unreachable
// database — each a normal outcome's cause that a later error may wrap.
// Otherwise the kind is that of the first error of the chain that says
// one (errors.As: the outermost, the first of a %w: %w), and an error that
// says none is a bug (KindInternal).
func KindOf(err error) domain.Kind {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, context.Canceled):
		return domain.KindClientGone
	case errors.Is(err, ErrOverloaded):
		return domain.KindShed
	case errors.Is(err, domain.ErrTimeout), errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded):
		return domain.KindTimeout
	case errors.Is(err, domain.ErrUnavailable):
		return domain.KindUnavailable
	}
	var k domain.KindedError
	if errors.As(err, &k) {
		return k.ErrorKind()
	}
	return domain.KindInternal
}
