package console

import (
	"net/http"
	"strconv"

	"github.com/gorilla/mux"

	intakeapp "github.com/acme3pl/fulfillment/application/intake"
	"github.com/acme3pl/fulfillment/domain/audit"
	"github.com/acme3pl/fulfillment/domain/intake"
	"github.com/acme3pl/fulfillment/domain/operator"
)

// FailedOrderPages are /failed-orders (the storefront orders that failed,
// by organization and code, each with its masked body and attempts) and
// its actions: replay one order, replay all of them (or those of a code).
type FailedOrderPages struct {
	Common
	intake *intakeapp.UseCases
	// replayWorkers replay at a time in a replay of all.
	replayWorkers int
}

// NewFailedOrderPages builds the group.
func NewFailedOrderPages(c Common, intake *intakeapp.UseCases) *FailedOrderPages {
	return &FailedOrderPages{Common: c, intake: intake, replayWorkers: 4}
}

// Register implements Routes.
func (p *FailedOrderPages) Register(r *mux.Router, g Guard) {
	r.Handle("/failed-orders", g.Page(operator.Viewer, p.list)).Methods(http.MethodGet, http.MethodHead)
	r.Handle("/failed-orders/replay", g.Action(operator.Ops, audit.OrdersReplay, p.replay)).Methods(http.MethodPost)
	r.Handle("/failed-orders/replay-all", g.Action(operator.Ops, audit.OrdersReplay, p.replayAll)).Methods(http.MethodPost)
}

// failedOrdersView is what the page shows.
type failedOrdersView struct {
	Org      string
	Code     string
	Codes    []string
	Receipts []*intake.OrderReceipt
	Pager    Pager
	// Order is the one order asked for (?order=), with its masked body.
	Order *intakeapp.MaskedOrder
}

const failedOrdersTitle = "Failed orders"

func (p *FailedOrderPages) list(w http.ResponseWriter, r *http.Request) {
	org, ok := p.organization(w, r, failedOrdersTitle)
	if !ok {
		return
	}
	q := r.URL.Query()
	v := failedOrdersView{Org: org.ID, Code: q.Get("code"), Codes: intakeapp.ReceiptErrorCodes}
	if s := q.Get("order"); s != "" {
		id, err := strconv.ParseInt(s, 10, 64)
		if err != nil || id <= 0 {
			p.pageError(w, r, failedOrdersTitle, fieldError("order", "is not a storefront order ID"))
			return
		}
		m, err := p.intake.GetMaskedOrder.Handle(r.Context(), intakeapp.GetMaskedOrder{OrganizationID: org.ID, OrderID: id})
		if err != nil {
			p.pageError(w, r, failedOrdersTitle, err)
			return
		}
		v.Order = &m
		p.Views.Render(w, r, http.StatusOK, "failed_order", v)
		return
	}
	filter, err := intakeapp.ParseReceiptFilter(string(intake.ReceiptFailed), v.Code)
	if err != nil {
		p.pageError(w, r, failedOrdersTitle, fieldError("code", "is not an error code of the order intake"))
		return
	}
	page, err := readPage(r)
	if err != nil {
		p.pageError(w, r, failedOrdersTitle, err)
		return
	}
	res, err := p.intake.ListOrderReceipts.Handle(r.Context(), intakeapp.ListOrderReceipts{
		OrganizationID: org.ID, Filter: filter, Page: page,
	})
	if err != nil {
		p.pageError(w, r, failedOrdersTitle, err)
		return
	}
	v.Receipts, v.Pager = res.Items, pager(r, page, res.More)
	p.Views.Render(w, r, http.StatusOK, "failed_orders", v)
}

// readOrderID reads the orderId field of a replay's form.
func readOrderID(r *http.Request) (int64, error) {
	id, err := strconv.ParseInt(r.PostFormValue("orderId"), 10, 64)
	if err != nil || id <= 0 {
		return 0, fieldError("orderId", "is not a storefront order ID (a positive whole number)")
	}
	return id, nil
}
