package invoicing

import (
	"context"
	"encoding/csv"
	"errors"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"github.com/acme3pl/fulfillment/adapters/apiview"
	"github.com/acme3pl/fulfillment/adapters/httpapi"
	invoicingapp "github.com/acme3pl/fulfillment/application/invoicing"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/ports"
	invoicingports "github.com/acme3pl/fulfillment/ports/invoicing"
)

// InvoiceCharges serves GET /v0/invoices/{id}/charges.
type InvoiceCharges struct {
	httpapi.Group[invoicingapp.UseCases]
	stall time.Duration // how long a download may wait for its client to read a chunk; 0: ExportStallTimeout
}

// NewInvoiceCharges builds the route.
func NewInvoiceCharges(app *invoicingapp.UseCases, auth httpapi.Authenticator, errs httpapi.ErrorMapper) *InvoiceCharges {
	return &InvoiceCharges{Group: httpapi.NewGroup(app, auth, errs, nil)}
}

// Register implements Routes.
func (h *InvoiceCharges) Register(r *mux.Router) {
	r.Handle("/v0/invoices/{id}/charges", h.Auth.RequireScopeStreamed(domain.ScopeInvoices, h.list)).Methods(http.MethodGet)
}

// wantsCSV reads the format asked: ?format=csv or json, else an Accept
// that names text/csv (and not JSON before it).
func wantsCSV(r *http.Request) (bool, error) {
	if f, ok := r.URL.Query()["format"]; ok {
		switch f[len(f)-1] {
		case "csv":
			return true, nil
		case "json":
			return false, nil
		}
		return false, domain.Invalid("format", "must be csv or json")
	}
	for _, part := range strings.Split(r.Header.Get("Accept"), ",") {
		t, _, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		switch t {
		case "text/csv":
			return true, nil
		case "application/json", "*/*":
			return false, nil
		}
	}
	return false, nil
}

func (h *InvoiceCharges) list(w http.ResponseWriter, r *http.Request) {
	csvOut, err := wantsCSV(r)
	p := httpapi.ReadQuery(r.URL.Query())
	page := ports.Page{Take: httpapi.DefaultTake}
	if !csvOut {
		page = p.PageUpTo(invoicingapp.MaxChargesTake)
	}
	if err == nil {
		err = p.Err()
	}
	if err != nil {
		h.Errors.Write(w, r, err)
		return
	}
	in := invoicingapp.ListInvoiceCharges{OrganizationID: httpapi.PrincipalFrom(r.Context()).OrganizationID, InvoiceID: mux.Vars(r)["id"], Page: page}
	if csvOut {
		h.writeCSV(w, r, in)
		return
	}
	out := make([]apiview.Charge, 0, page.Take)
	in.Each = func(c invoicingports.InvoiceCharge) error {
		dto, err := apiview.ChargeOf(c)
		out = append(out, dto)
		return err
	}
	more, err := h.App.ListInvoiceCharges.Handle(r.Context(), in)
	if err != nil {
		h.Errors.Write(w, r, err)
		return
	}
	httpapi.SetNextLink(w, r, page, more)
	httpapi.WriteJSON(w, http.StatusOK, out)
}

// errStreamed marks an error met after the CSV's first row was sent: the
// status is out, so the answer is cut short (the client sees a truncated
// body, never a row that is wrong).
var errStreamed = errors.New("csv streamed")

// How a download is written (docs/invoices.md, downloads): flushed to the
// client every exportFlushRows rows (the CSV writer's and the server's
// buffers send the bytes in between as they fill), each chunk within
// ExportStallTimeout of the last: a client that stops reading for that
// long is cut off, and frees its slot and its database connection.
const (
	exportFlushRows    = 1000
	ExportStallTimeout = 30 * time.Second
)

// writeCSV streams every charge as CSV (RFC 4180: CRLF line ends, quoted
// where needed), each row written as it is read: an invoice of any size is
// never held in memory. Its deadline is the download's (the admission's
// GuardStream), not the request deadline. When the answer cannot be
// finished (the deadline, the database, a client gone or stalled) after
// its status was sent, the answer is cut short (http.ErrAbortHandler)
// rather than ended as if complete, and the database's read is cancelled
// rather than drained.
func (h *InvoiceCharges) writeCSV(w http.ResponseWriter, r *http.Request, in invoicingapp.ListInvoiceCharges) {
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	in.Page = ports.Page{} // every charge
	rc := http.NewResponseController(w)
	cw := csv.NewWriter(w)
	cw.UseCRLF = true
	stall := h.stall
	if stall <= 0 {
		stall = ExportStallTimeout
	}
	flush := func() error {
		cw.Flush()
		if err := cw.Error(); err != nil {
			return err
		}
		if err := rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
			return err
		}
		if err := rc.SetWriteDeadline(time.Now().Add(stall)); err != nil && !errors.Is(err, http.ErrNotSupported) {
			return err
		}
		return nil
	}
	started, rows := false, 0
	var lost error // the client's connection failed: gone, or stalled
	start := func() error {
		w.Header().Set("Content-Type", "text/csv; charset=utf-8")
		w.Header().Set("Content-Disposition", `attachment; filename="`+in.InvoiceID+`-charges.csv"`)
		_ = rc.SetWriteDeadline(time.Now().Add(stall)) // a writer without deadlines (a test's recorder): none to set
		w.WriteHeader(http.StatusOK)
		started = true
		return cw.Write(apiview.ChargesCSVHeader)
	}
	cut := func(err error) error {
		lost = err
		cancel() // the rows not read yet are dropped with their connection, not drained
		return errStreamed
	}
	in.Each = func(c invoicingports.InvoiceCharge) error {
		if !started {
			if err := start(); err != nil {
				return cut(err)
			}
		}
		dto, err := apiview.ChargeOf(c)
		if err != nil {
			return err
		}
		if err := cw.Write(apiview.ChargeCSVRecord(dto)); err != nil {
			return cut(err)
		}
		if rows++; rows%exportFlushRows == 0 {
			if err := flush(); err != nil {
				return cut(err)
			}
		}
		return nil
	}
	_, err := h.App.ListInvoiceCharges.Handle(ctx, in)
	if err != nil && !started {
		h.Errors.Write(w, r, err)
		return
	}
	if err == nil {
		if !started {
			_ = start() // no charges: the header row alone
		}
		if err = flush(); err == nil {
			return
		}
		lost = err
	}
	if lost != nil || r.Context().Err() != nil {
		// The client went away or stopped reading: not a fault (499).
		httpapi.RecordErrorKind(r.Context(), domain.KindClientGone)
	} else {
		httpapi.NoteError(h.Errors.Log, r, err)
	}
	panic(http.ErrAbortHandler) // the status is sent: cut the answer short rather than end it as if complete
}
