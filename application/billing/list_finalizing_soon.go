package billing

import (
	"context"
	"time"

	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/ports"
)

// ListFinalizingSoon asks for the open invoices that billing finalizes
// within Within from now (their period's end and the grace passed): the
// console's first page, at most Limit of them.
type ListFinalizingSoon struct {
	Within time.Duration
	Limit  int
}

// FinalizingSoon is an open invoice and when billing finalizes it.
type FinalizingSoon struct {
	ports.DuePeriod
	FinalizesAt time.Time
}

// NewListFinalizingSoonHandler builds the handler.
func NewListFinalizingSoonHandler(d Deps) application.HandlerFunc[ListFinalizingSoon, []FinalizingSoon] {
	return func(ctx context.Context, q ListFinalizingSoon) ([]FinalizingSoon, error) {
		by := d.Clock.Now().Add(q.Within - d.Settings.Grace)
		due, err := d.Repos.Overview.OpenPeriodsEndedBy(ctx, by, max(q.Limit, 1))
		if err != nil {
			return nil, err
		}
		out := make([]FinalizingSoon, len(due))
		for i, p := range due {
			out[i] = FinalizingSoon{DuePeriod: p, FinalizesAt: p.Ends.Add(d.Settings.Grace)}
		}
		return out, nil
	}
}
