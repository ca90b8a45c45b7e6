package console

import (
	"encoding/csv"
	"net/http"
	"sort"

	"github.com/gorilla/mux"

	"github.com/acme3pl/fulfillment/adapters/apiview"
	billingapp "github.com/acme3pl/fulfillment/application/billing"
	invoicingapp "github.com/acme3pl/fulfillment/application/invoicing"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/audit"
	"github.com/acme3pl/fulfillment/domain/billing"
	"github.com/acme3pl/fulfillment/domain/invoicing"
	"github.com/acme3pl/fulfillment/domain/operator"
	invoicingports "github.com/acme3pl/fulfillment/ports/invoicing"
)

// BillingPages are /billing (an organization's open invoice line by line
// with its charges, its finalized invoices with their charges and CSV) and
// its actions: add a charge or a credit, close the period, move an
// invoice's status, set the rate card.
type BillingPages struct {
	Common
	billing   *billingapp.UseCases
	invoicing *invoicingapp.UseCases
}

// NewBillingPages builds the group.
func NewBillingPages(c Common, billing *billingapp.UseCases, invoicing *invoicingapp.UseCases) *BillingPages {
	return &BillingPages{Common: c, billing: billing, invoicing: invoicing}
}

// Register implements Routes.
func (p *BillingPages) Register(r *mux.Router, g Guard) {
	r.Handle("/billing", g.Page(operator.Viewer, p.page)).Methods(http.MethodGet, http.MethodHead)
	r.Handle("/billing/invoices/{id}/charges.csv", g.Page(operator.Viewer, p.csv)).Methods(http.MethodGet, http.MethodHead)
	r.Handle("/billing/charges", g.Action(operator.Billing, audit.ChargesAdd, p.addCharge)).Methods(http.MethodPost)
	r.Handle("/billing/close", g.Action(operator.Billing, audit.BillingClose, p.closePeriod)).Methods(http.MethodPost)
	r.Handle("/billing/status", g.Action(operator.Billing, audit.InvoicesStatus, p.changeStatus)).Methods(http.MethodPost)
	r.Handle("/billing/rates", g.Action(operator.Billing, audit.RatesSet, p.setRates)).Methods(http.MethodPost)
}

// openChargesShown bounds the charges of an open invoice the page lists
// (a month's storage days may be thousands); the rest are in its CSV once
// finalized.
const openChargesShown = 200

// chargeRow is a charge as the page shows it.
type chargeRow struct {
	invoicingports.InvoiceCharge
	Quantity string
	Amount   int64
}

func rowOf(c invoicingports.InvoiceCharge) chargeRow {
	row := chargeRow{InvoiceCharge: c}
	if q, err := domain.QuantityFromMilli(c.QuantityMilli); err == nil {
		row.Quantity = q.String()
	}
	row.Amount, _ = billing.LineTotal(c.QuantityMilli, c.UnitCost) // a stored charge's total fits: it was billed
	return row
}

// lineView is an invoice's line and its charges.
type lineView struct {
	Item    invoicing.InvoiceItem
	Charges []chargeRow
}

// billingView is what /billing shows.
type billingView struct {
	Org          string
	Open         []*invoicing.Invoice
	OpenTotal    int64 // the total of the last open invoice (the current month's)
	OpenLines    [][]lineView
	MoreCharges  bool
	Invoices     []*invoicing.Invoice
	Pager        Pager
	Statuses     []invoicing.InvoiceStatus
	Fees         []billing.Fee
	Invoice      *invoicing.Invoice // ?invoice=: a finalized invoice's charges
	Charges      []chargeRow
	ChargesPager Pager
	Today        string
}

const billingTitle = "Billing"

func (p *BillingPages) page(w http.ResponseWriter, r *http.Request) {
	org, ok := p.organization(w, r, billingTitle)
	if !ok {
		return
	}
	v := billingView{Org: org.ID, Statuses: invoicing.VisibleInvoiceStatuses, Fees: billing.Fees}
	if id := r.URL.Query().Get("invoice"); id != "" {
		p.invoicePage(w, r, v, id)
		return
	}
	var charges []invoicingports.InvoiceCharge
	open, err := p.billing.PreviewInvoices.Handle(r.Context(), billingapp.PreviewInvoices{OrganizationID: org.ID,
		ChargesTake: openChargesShown + 1, // one more tells that there are more
		Charges: func(c invoicingports.InvoiceCharge) error {
			if len(charges) < openChargesShown {
				charges = append(charges, c)
			} else {
				v.MoreCharges = true
			}
			return nil
		}})
	if err != nil {
		p.pageError(w, r, billingTitle, err)
		return
	}
	v.Open = open
	if len(open) > 0 {
		v.OpenTotal = open[len(open)-1].TotalAmount()
	}
	for _, inv := range open {
		v.OpenLines = append(v.OpenLines, linesOf(inv, charges))
	}
	page, err := readPage(r)
	if err != nil {
		p.pageError(w, r, billingTitle, err)
		return
	}
	list, err := p.invoicing.ListInvoices.Handle(r.Context(), invoicingapp.ListInvoices{OrganizationID: org.ID, Page: page})
	if err != nil {
		p.pageError(w, r, billingTitle, err)
		return
	}
	v.Invoices, v.Pager = list.Items, pager(r, page, list.More)
	p.Views.Render(w, r, http.StatusOK, "billing", v)
}

// linesOf groups the charges under the invoice's lines by their title (a
// line is the sum of the charges of one title and unit cost); charges of
// no line are left out.
func linesOf(inv *invoicing.Invoice, charges []invoicingports.InvoiceCharge) []lineView {
	items := inv.Items()
	out := make([]lineView, len(items))
	for i, it := range items {
		out[i].Item = it
		for _, c := range charges {
			if c.Title == it.Title() && c.UnitCost == it.UnitCost() {
				out[i].Charges = append(out[i].Charges, rowOf(c))
			}
		}
	}
	return out
}

// invoicePage shows one invoice of the organization with a page of its
// charges.
func (p *BillingPages) invoicePage(w http.ResponseWriter, r *http.Request, v billingView, id string) {
	inv, err := p.invoicing.GetInvoice.Handle(r.Context(), invoicingapp.GetInvoice{OrganizationID: v.Org, ID: id})
	if err != nil {
		p.pageError(w, r, billingTitle, err)
		return
	}
	page, err := readPage(r)
	if err != nil {
		p.pageError(w, r, billingTitle, err)
		return
	}
	more, err := p.invoicing.ListInvoiceCharges.Handle(r.Context(), invoicingapp.ListInvoiceCharges{
		OrganizationID: v.Org, InvoiceID: id, Page: page,
		Each: func(c invoicingports.InvoiceCharge) error { v.Charges = append(v.Charges, rowOf(c)); return nil },
	})
	if err != nil {
		p.pageError(w, r, billingTitle, err)
		return
	}
	v.Invoice, v.ChargesPager = inv, pager(r, page, more)
	p.Views.Render(w, r, http.StatusOK, "billing_invoice", v)
}

// csv serves a finalized invoice's charges as the API's CSV (§15), through
// the same use case, streamed row by row.
func (p *BillingPages) csv(w http.ResponseWriter, r *http.Request) {
	const title = "Charges of an invoice"
	org, err := orgOf(r)
	if err == nil && org == "" {
		err = fieldError("org", "is required")
	}
	if err != nil {
		p.pageError(w, r, title, err)
		return
	}
	id := mux.Vars(r)["id"]
	started := false
	cw := csv.NewWriter(w)
	cw.UseCRLF = true
	start := func() error {
		w.Header().Set("Content-Type", "text/csv; charset=utf-8")
		w.Header().Set("Content-Disposition", `attachment; filename="`+id+`-charges.csv"`)
		w.WriteHeader(http.StatusOK)
		started = true
		return cw.Write(apiview.ChargesCSVHeader)
	}
	_, err = p.invoicing.ListInvoiceCharges.Handle(r.Context(), invoicingapp.ListInvoiceCharges{
		OrganizationID: org, InvoiceID: id,
		Each: func(c invoicingports.InvoiceCharge) error {
			if !started {
				if err := start(); err != nil {
					return err
				}
			}
			dto, err := apiview.ChargeOf(c)
			if err != nil {
				return err
			}
			return cw.Write(apiview.ChargeCSVRecord(dto))
		},
	})
	switch {
	case err != nil && !started:
		p.pageError(w, r, title, err)
		return
	case err != nil:
		panic(http.ErrAbortHandler) // the status is out: cut the answer short rather than end it as if complete
	case !started:
		if err := start(); err != nil {
			return
		}
	}
	cw.Flush()
}

// sortedServices are a card's service codes in order.
func sortedServices(cards ...*billing.RateCard) []string {
	seen := map[string]bool{}
	var out []string
	for _, c := range cards {
		if c == nil {
			continue
		}
		for _, code := range c.ServiceCodes() {
			if !seen[code] {
				seen[code] = true
				out = append(out, code)
			}
		}
	}
	sort.Strings(out)
	return out
}
