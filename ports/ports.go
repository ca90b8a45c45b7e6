package ports

import (
	"context"
	"time"
)

// UnitOfWork runs fn in one database transaction with a context's
// repositories R bound to it: everything fn writes commits together or not
// at all. Each context declares its R (the Repositories of its package
// under ports/): the repositories its use cases use, and no others.
type UnitOfWork[R any] interface {
	Do(ctx context.Context, fn func(ctx context.Context, r R) error) error
}

// Clock tells the time; tests pin it.
type Clock interface {
	Now() time.Time
}

// IDGenerator makes new, unique, opaque IDs such as "shp_0193…".
type IDGenerator interface {
	NewID(prefix string) string
}

// Page is a window of a list: Skip records skipped, at most Take returned.
type Page struct {
	Skip int
	Take int
}
