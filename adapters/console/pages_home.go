package console

import (
	"net/http"
	"sort"
	"time"

	"github.com/gorilla/mux"

	"github.com/acme3pl/fulfillment/application"
	billingapp "github.com/acme3pl/fulfillment/application/billing"
	intakeapp "github.com/acme3pl/fulfillment/application/intake"
	"github.com/acme3pl/fulfillment/domain/operator"
	"github.com/acme3pl/fulfillment/ports"
)

// HomePages is / ("Today"): across every organization, the failed orders
// by code and the oldest's age, the pending shipments per warehouse and the
// oldest's age, the open invoices billing finalizes within a day, and the
// outbox's backlog.
type HomePages struct {
	Common
	intake  *intakeapp.UseCases
	billing *billingapp.UseCases
}

// NewHomePages builds the group.
func NewHomePages(c Common, intake *intakeapp.UseCases, billing *billingapp.UseCases) *HomePages {
	return &HomePages{Common: c, intake: intake, billing: billing}
}

// Register implements Routes.
func (p *HomePages) Register(r *mux.Router, g Guard) {
	r.Handle("/", g.Page(operator.Viewer, p.page)).Methods(http.MethodGet, http.MethodHead)
}

// codeCount is a failed orders' code and how many.
type codeCount struct {
	Code  string
	Count int
}

// queueView is a warehouse's pending shipments with the oldest's age.
type queueView struct {
	ports.WarehouseQueue
	Age time.Duration
}

// homeView is what / shows.
type homeView struct {
	Failed       []codeCount
	FailedTotal  int
	FailedOldest time.Duration
	Queues       []queueView
	Due          []billingapp.FinalizingSoon
	Backlog      ports.OutboxBacklog
	BacklogAge   time.Duration
	Now          time.Time
}

// dueShown bounds the invoices due the page lists.
const dueShown = 50

func (p *HomePages) page(w http.ResponseWriter, r *http.Request) {
	const title = "Today"
	now := p.Clock.Now()
	v := homeView{Now: now}
	failed, err := p.intake.CountFailedOrders.Handle(r.Context(), intakeapp.CountFailedOrders{})
	if err != nil {
		p.pageError(w, r, title, err)
		return
	}
	for code, n := range failed.ByCode {
		if n > 0 {
			v.Failed = append(v.Failed, codeCount{Code: code, Count: n})
			v.FailedTotal += n
		}
	}
	sort.Slice(v.Failed, func(i, j int) bool {
		if v.Failed[i].Count != v.Failed[j].Count {
			return v.Failed[i].Count > v.Failed[j].Count
		}
		return v.Failed[i].Code < v.Failed[j].Code
	})
	v.FailedOldest = failed.OldestAge
	o, err := p.App.GetOverview.Handle(r.Context(), application.GetOverview{})
	if err != nil {
		p.pageError(w, r, title, err)
		return
	}
	for _, q := range o.Queues {
		v.Queues = append(v.Queues, queueView{WarehouseQueue: q, Age: ageSince(now, q.OldestSubmitted)})
	}
	v.Backlog, v.BacklogAge = o.Backlog, ageSince(now, o.Backlog.Oldest)
	v.Due, err = p.billing.ListFinalizingSoon.Handle(r.Context(), billingapp.ListFinalizingSoon{Within: 24 * time.Hour, Limit: dueShown})
	if err != nil {
		p.pageError(w, r, title, err)
		return
	}
	p.Views.Render(w, r, http.StatusOK, "home", v)
}

// ageSince is how long ago t was; 0 for none.
func ageSince(now, t time.Time) time.Duration {
	if t.IsZero() || t.After(now) {
		return 0
	}
	return now.Sub(t)
}
