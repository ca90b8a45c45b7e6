package console

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/acme3pl/fulfillment/adapters/fixture"
	"github.com/acme3pl/fulfillment/application"
	billingapp "github.com/acme3pl/fulfillment/application/billing"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/billing"
	"github.com/acme3pl/fulfillment/domain/invoicing"
)

// The billing actions, each the use case of its CLI command with the CLI's
// checks of its input (`charges add`, `billing close`, `invoices status`,
// `rates set`).

// openTotal is the organization's open invoice's total now, for the
// outcome of a charge ("" when it has none).
func (p *BillingPages) openTotal(r *http.Request, org string) string {
	open, err := p.billing.PreviewInvoices.Handle(r.Context(), billingapp.PreviewInvoices{OrganizationID: org})
	if err != nil || len(open) == 0 {
		return ""
	}
	return money(open[len(open)-1].TotalAmount())
}

// addCharge adds a charge or a credit to the open invoice (`charges add`).
func (p *BillingPages) addCharge(w http.ResponseWriter, r *http.Request) {
	const title = "Add a charge or a credit"
	org, err := formOrg(r)
	if err != nil {
		p.failed(w, r, title, "/billing", err)
		return
	}
	back := backTo("/billing", org)
	c := billingapp.AddCharge{OrganizationID: org, Reference: r.PostFormValue("reference"), Title: r.PostFormValue("title"),
		Description: r.PostFormValue("description"), Quantity: strings.TrimSpace(r.PostFormValue("quantity")),
		Date: strings.TrimSpace(r.PostFormValue("date"))}
	var checkErr error
	switch {
	case c.Reference == "":
		err = fieldError("reference", "is required: a reference of the charge, once per organization")
	case c.Title == "":
		err = fieldError("title", "is required: the line's title on the invoice")
	default:
		// The checks of `charges add`, shared.
		c.UnitCost, checkErr = billingapp.ParseChargeFields(c.Quantity, strings.TrimSpace(r.PostFormValue("unitCost")), c.Date)
		if bad := (*billingapp.ChargeFieldError)(nil); errors.As(checkErr, &bad) {
			problem := bad.Problem
			if bad.Field == "unitCost" {
				problem += " (negative for a credit)"
			}
			err = fieldError(bad.Field, problem)
		}
	}
	if err != nil {
		p.failed(w, r, title, back, err)
		return
	}
	principal, _ := PrincipalFrom(r.Context())
	c.Actor = principal.Actor()
	res, err := p.billing.AddCharge.Handle(r.Context(), c)
	if err != nil {
		p.failed(w, r, title, back, err)
		return
	}
	o := Outcome{Title: title, Back: back, BackLabel: "Back to the billing of " + org}
	q, _ := domain.ParseQuantity(c.Quantity) // checked above
	amount, _ := billing.LineTotal(q.Milli(), c.UnitCost)
	o.Facts = []Fact{
		{Label: "Reference", Value: c.Reference, ID: "charge-reference"},
		{Label: "Title", Value: c.Title},
		{Label: "Amount", Value: money(amount), ID: "charge-amount"},
	}
	if total := p.openTotal(r, org); total != "" {
		o.Facts = append(o.Facts, Fact{Label: "Open invoice's total now", Value: total, ID: "invoice-total"})
	}
	switch {
	case !res.Added:
		o.Unchanged, o.Message = true, "This charge was recorded before with the same content; nothing changed."
	case res.ForPeriod != "":
		o.Done, o.Message = true, "The charge was recorded on the open invoice, for "+res.ForPeriod+"."
	default:
		o.Done, o.Message = true, "The charge was recorded on the open invoice."
	}
	p.outcome(w, r, o)
}

// closeView is the confirmation of a close: the open invoices' totals.
type closeView struct {
	Org  string
	Open []*invoicing.Invoice
}

// closePeriod closes the organization's open period now (`billing close`):
// with org alone it shows what would be finalized and changes nothing; with
// confirm=yes it closes and shows the finalized invoice's key.
func (p *BillingPages) closePeriod(w http.ResponseWriter, r *http.Request) {
	const title = "Close the billing period"
	org, err := formOrg(r)
	if err != nil {
		p.failed(w, r, title, "/billing", err)
		return
	}
	back := backTo("/billing", org)
	switch r.PostFormValue("confirm") {
	case "":
		open, err := p.billing.PreviewInvoices.Handle(r.Context(), billingapp.PreviewInvoices{OrganizationID: org})
		if err != nil {
			p.failed(w, r, title, back, err)
			return
		}
		p.Views.Render(w, r, http.StatusOK, "close_confirm", closeView{Org: org, Open: open})
		return
	case "yes":
	default:
		p.failed(w, r, title, back, fieldError("confirm", "must be yes to close"))
		return
	}
	principal, _ := PrincipalFrom(r.Context())
	closed, err := p.billing.ClosePeriod.Handle(r.Context(), billingapp.ClosePeriod{OrganizationID: org, Actor: principal.Actor()})
	if err != nil {
		p.failed(w, r, title, back, err)
		return
	}
	o := Outcome{Title: title, Done: true, Back: back, BackLabel: "Back to the billing of " + org}
	all := closed.All()
	for i, f := range all {
		suffix := ""
		if i < len(all)-1 {
			suffix = "-previous" // the period in its grace, finalized first
		}
		period := when(f.Period.Start) + " to " + when(f.Period.End)
		if f.Key == "" {
			o.Facts = append(o.Facts, Fact{Label: "Period " + period, Value: "nothing billed, no invoice", ID: "finalized-none" + suffix})
			continue
		}
		o.Facts = append(o.Facts,
			Fact{Label: "Invoice key", Value: f.Key, ID: "finalized-key" + suffix},
			Fact{Label: "Invoice", Value: f.InvoiceID, ID: "finalized-invoice" + suffix,
				Link: backTo("/billing", org) + "&invoice=" + templateURLQuery(f.InvoiceID)},
			Fact{Label: "Period", Value: period},
			Fact{Label: "Lines", Value: strconv.Itoa(f.Lines)},
			Fact{Label: "Total", Value: money(f.TotalAmount), ID: "finalized-total" + suffix})
	}
	o.Message = "The period was closed and its invoice finalized; a new period is open."
	p.outcome(w, r, o)
}

// changeStatus moves a finalized invoice's status (`invoices status`).
func (p *BillingPages) changeStatus(w http.ResponseWriter, r *http.Request) {
	const title = "Change an invoice's status"
	id, to := r.PostFormValue("invoiceId"), r.PostFormValue("to")
	var err error
	if !domain.ValidID(id) {
		err = fieldError("invoiceId", "is not an invoice ID")
	} else if _, perr := invoicing.ParseVisibleInvoiceStatus(to); perr != nil {
		err = fieldError("to", "is not a status (one of "+statusNames()+")")
	}
	if err != nil {
		p.failed(w, r, title, "/billing", err)
		return
	}
	principal, _ := PrincipalFrom(r.Context())
	from, err := p.billing.ChangeInvoiceStatus.Handle(r.Context(), billingapp.ChangeInvoiceStatus{InvoiceID: id, To: to, Actor: principal.Actor()})
	if err != nil {
		p.failed(w, r, title, "/billing", err)
		return
	}
	o := Outcome{Title: title, Back: "/billing", BackLabel: "Back to billing",
		Facts: []Fact{{Label: "Invoice", Value: id, ID: "status-invoice"}, {Label: "Status", Value: fmt.Sprintf("%s → %s", from, to), ID: "status-change"}}}
	if string(from) == to {
		o.Unchanged, o.Message = true, "The invoice had this status already."
	} else {
		o.Done, o.Message = true, "The invoice's status was changed."
	}
	p.outcome(w, r, o)
}

func statusNames() string {
	names := make([]string, len(invoicing.VisibleInvoiceStatuses))
	for i, st := range invoicing.VisibleInvoiceStatuses {
		names[i] = string(st)
	}
	return strings.Join(names, ", ")
}

// feeRow is a fee of two cards side by side.
type feeRow struct {
	Name          string
	Current, New  string
	Changed       bool
	CurrentAbsent bool
}

// ratesView is the comparison of the card in force and the card submitted.
type ratesView struct {
	Org, Card  string
	From       string
	HasCurrent bool
	Current    string // effective from
	Rows       []feeRow
}

// setRates sets the organization's rate card (`rates set`) from the card
// as JSON (the file `rates set --file` reads): the first POST shows it
// against the card in force and changes nothing; the POST of that page's
// form, with confirm=yes, sets it.
func (p *BillingPages) setRates(w http.ResponseWriter, r *http.Request) {
	const title = "Set the rate card"
	org, err := formOrg(r)
	if err != nil {
		p.failed(w, r, title, "/billing", err)
		return
	}
	back := backTo("/billing", org)
	text := r.PostFormValue("card")
	params, err := fixture.DecodeRateCard(strings.NewReader(text))
	if err != nil {
		p.failed(w, r, title, back, fieldError("card", "is not a rate card: "+err.Error()))
		return
	}
	if params.OrganizationID == "" {
		params.OrganizationID = org
	}
	if params.OrganizationID != org {
		p.failed(w, r, title, back, fieldError("card", fmt.Sprintf("is for %q, not %q", params.OrganizationID, org)))
		return
	}
	card, err := billing.NewRateCard(params)
	if err != nil {
		p.failed(w, r, title, back, err)
		return
	}
	switch r.PostFormValue("confirm") {
	case "":
		current, err := p.billing.GetRateCard.Handle(r.Context(), billingapp.GetRateCard{OrganizationID: org})
		if err != nil && application.KindOf(err) != domain.KindNotFound {
			p.failed(w, r, title, back, err)
			return
		}
		if application.KindOf(err) == domain.KindNotFound {
			current = nil
		}
		p.Views.Render(w, r, http.StatusOK, "rates_confirm", compareCards(org, text, current, card))
		return
	case "yes":
	default:
		p.failed(w, r, title, back, fieldError("confirm", "must be yes to set the card"))
		return
	}
	current, _ := p.billing.GetRateCard.Handle(r.Context(), billingapp.GetRateCard{OrganizationID: org})
	principal, _ := PrincipalFrom(r.Context())
	set, err := p.billing.SetRateCard.Handle(r.Context(), billingapp.SetRateCard{Card: params, Actor: principal.Actor()})
	if err != nil {
		p.failed(w, r, title, back, err)
		return
	}
	o := Outcome{Title: title, Done: true, Back: back, BackLabel: "Back to the billing of " + org, Message: "The rate card was set.",
		Facts: []Fact{{Label: "Organization", Value: org}, {Label: "In force from", Value: set.EffectiveFrom().String(), ID: "rates-from"}}}
	if current != nil && current.Equal(card) {
		o.Done, o.Unchanged, o.Message = false, true, "This card was in force already; nothing changed."
	}
	p.outcome(w, r, o)
}

// compareCards lays the card in force (nil: none) and the new one side by
// side, fee by fee and service by service.
func compareCards(org, text string, current, next *billing.RateCard) ratesView {
	v := ratesView{Org: org, Card: text, From: next.EffectiveFrom().String(), HasCurrent: current != nil}
	if current != nil {
		v.Current = current.EffectiveFrom().String()
	}
	cents := func(c int64) string { return money(c) }
	for _, f := range billing.Fees {
		row := feeRow{Name: string(f), New: cents(next.Fee(f))}
		if current != nil {
			row.Current = cents(current.Fee(f))
		} else {
			row.CurrentAbsent = true
		}
		row.Changed = row.Current != row.New
		v.Rows = append(v.Rows, row)
	}
	for _, code := range sortedServices(current, next) {
		row := feeRow{Name: "service " + code}
		if current != nil {
			if s, ok := current.Service(code); ok {
				row.Current = s.Title + ": " + cents(s.UnitCost)
			}
		}
		row.CurrentAbsent = row.Current == ""
		if s, ok := next.Service(code); ok {
			row.New = s.Title + ": " + cents(s.UnitCost)
		} else {
			row.New = "removed"
		}
		row.Changed = row.Current != row.New
		v.Rows = append(v.Rows, row)
	}
	return v
}
