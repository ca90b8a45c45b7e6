package console

import (
	"bytes"
	"fmt"
	"html"
	"net/http"
	"strings"

	"github.com/acme3pl/fulfillment/application"
	intakeapp "github.com/acme3pl/fulfillment/application/intake"
)

// replay replays one failed order (`orders replay --org ID --order ID`) and
// shows its outcome: the new shipment, the order that had succeeded
// already (unchanged), or why it failed again.
func (p *FailedOrderPages) replay(w http.ResponseWriter, r *http.Request) {
	const title = "Replay a failed order"
	org, err := formOrg(r)
	if err != nil {
		p.failed(w, r, title, "/failed-orders", err)
		return
	}
	back := backTo("/failed-orders", org)
	id, err := readOrderID(r)
	if err != nil {
		p.failed(w, r, title, back, err)
		return
	}
	principal, _ := PrincipalFrom(r.Context())
	var one intakeapp.ReplayedOrder
	_, err = p.intake.ReplayFailedOrders.Handle(r.Context(), intakeapp.ReplayFailedOrders{
		OrganizationID: org, OrderID: id, Actor: principal.Actor(), Each: func(o intakeapp.ReplayedOrder) { one = o },
	})
	if err == nil {
		err = one.Err
	}
	if err != nil {
		p.failed(w, r, title, back, err)
		return
	}
	o := Outcome{Title: title, Back: back, BackLabel: "Back to the failed orders"}
	o.Facts = []Fact{{Label: "Storefront order", Value: fmt.Sprint(id), ID: "replay-order-id"}}
	if s := one.Result.ShipmentID; s != "" {
		o.Facts = append(o.Facts, Fact{Label: "Shipment", Value: s, ID: "replay-shipment-id",
			Link: backTo("/shipments", org) + "&id=" + templateURLQuery(s)})
	} else {
		o.Facts = append(o.Facts, Fact{Label: "No shipment, because", Value: string(one.Result.Skipped), ID: "replay-skipped"})
	}
	if one.Result.Duplicate {
		o.Unchanged, o.Message = true, "The order had been taken already; nothing changed."
	} else {
		o.Done, o.Message = true, "The order was replayed and taken."
	}
	p.outcome(w, r, o)
}

// progressMarker is where the replay-all page's list of replayed orders
// goes: the page before it is sent at once, each order's line as it is
// replayed, and the rest of the page with the summary at the end.
const (
	progressMarker = `<li class="progress-marker"></li>`
	summaryMarker  = `<p class="summary-marker"></p>`
)

// replayAll replays every failed order of the organization that keeps its
// body (`orders replay --org ID --all-failed`), or those of one error code,
// streaming a line per order as it is replayed (a page that loads as it
// goes: no script needed) and ending with the CLI's summary line.
func (p *FailedOrderPages) replayAll(w http.ResponseWriter, r *http.Request) {
	const title = "Replay all failed orders"
	org, err := formOrg(r)
	if err != nil {
		p.failed(w, r, title, "/failed-orders", err)
		return
	}
	back := backTo("/failed-orders", org)
	code := r.PostFormValue("code")
	if code != "" {
		if _, err := intakeapp.ParseReceiptFilter("", code); err != nil {
			p.failed(w, r, title, back, fieldError("code", "is not an error code of the order intake"))
			return
		}
	}
	if _, err := p.App.CheckPrincipal.Handle(r.Context(), application.CheckPrincipal{OrganizationID: org}); err != nil {
		p.failed(w, r, title, back, err)
		return
	}
	var page bytes.Buffer
	if err := p.Views.execute(&page, r, "replay_all", struct {
		Org, Code string
		Back      string
	}{org, code, string(back)}); err != nil {
		http.Error(w, "the page could not be rendered", http.StatusInternalServerError)
		return
	}
	head, tail, _ := strings.Cut(page.String(), progressMarker)
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write([]byte(head))
	_ = rc.Flush()
	principal, _ := PrincipalFrom(r.Context())
	run, err := p.intake.ReplayFailedOrders.Handle(r.Context(), intakeapp.ReplayFailedOrders{
		OrganizationID: org, AllFailed: true, Code: code, Workers: p.replayWorkers, Actor: principal.Actor(),
		Each: func(o intakeapp.ReplayedOrder) {
			detail := o.ShipmentOrSkip()
			if o.Err != nil {
				detail = application.KindOf(o.Err).Code()
			}
			fmt.Fprintf(w, "<li>%d %s %s</li>\n", o.OrderID, o.Outcome(), html.EscapeString(detail))
			_ = rc.Flush()
		},
	})
	middle, tail, _ := strings.Cut(tail, summaryMarker)
	var end strings.Builder
	end.WriteString(middle)
	switch {
	case err != nil:
		f := failureOf(err)
		fmt.Fprintf(&end, `<div class="error" role="alert" id="error"><p>%s</p><p>Error code: <code>%s</code></p></div>`,
			html.EscapeString(f.Message), html.EscapeString(f.Code))
	default:
		fmt.Fprintf(&end, `<p class="summary" role="status" id="replay-summary">%s</p>`, html.EscapeString(run.Summary()))
		if run.Interrupted {
			end.WriteString(`<p class="error">The replay was stopped before its end; the orders replayed stay replayed. Replay again to replay the rest.</p>`)
		}
		if run.WalkErr != nil {
			end.WriteString(`<p class="error">The list of the failed orders could not be read to its end; replay again to replay the rest.</p>`)
		}
	}
	_, _ = w.Write([]byte(end.String() + tail))
	_ = rc.Flush()
}
