package audit

import (
	"context"
	"time"

	"github.com/acme3pl/fulfillment/domain/audit"
	"github.com/acme3pl/fulfillment/ports"
)

// Log is the audit log of the operators' actions (docs/audit.md). In
// a unit of work (the Trail of a context's Repositories, r.Audit) Append writes a record in the
// action's transaction; records are never updated or deleted.
type Log interface {
	// Append writes rec.
	Append(ctx context.Context, rec audit.Record) error
	// List hands each record q selects to each, oldest first (by at, then
	// in the order they were written), and stops at each's first error.
	List(ctx context.Context, q Query, each func(audit.Record) error) error
	// Page returns a page of the records q selects, newest first, and
	// whether more follow (the console's audit page).
	Page(ctx context.Context, q Query, page ports.Page) ([]audit.Record, bool, error)
}

// Query selects records: every field left empty selects all.
type Query struct {
	OrganizationID string
	Actor          string    // the actor's subject or e-mail
	Since          time.Time // records at or after it
	Action         audit.Action
}
