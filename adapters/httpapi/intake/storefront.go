package intake

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strconv"

	"github.com/gorilla/mux"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/acme3pl/fulfillment/adapters/httpapi"
	"github.com/acme3pl/fulfillment/adapters/telemetry"
	"github.com/acme3pl/fulfillment/application"
	intakeapp "github.com/acme3pl/fulfillment/application/intake"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/intake"
	accessports "github.com/acme3pl/fulfillment/ports/access"
)

// StorefrontBodyLimit bounds the body of an order delivery (5 MiB: storefronts send whole orders).
const StorefrontBodyLimit = 5 << 20

// storefrontScopes are the scopes an intake API key needs, in the order a
// 403 lists the missing ones.
var storefrontScopes = []domain.Scope{domain.ScopeShipments, domain.ScopeInventory}

// Storefront serves the order intake webhook (API key, its own error shape)
// and the order receipt (OAuth, problem+json).
type Storefront struct {
	httpapi.Group[intakeapp.UseCases]
	signatures accessports.StorefrontSignatureVerifier
	log        *slog.Logger
}

// NewStorefront builds the storefront routes.
func NewStorefront(app *intakeapp.UseCases, signatures accessports.StorefrontSignatureVerifier,
	auth httpapi.Authenticator, errs httpapi.ErrorMapper, log *slog.Logger, m *telemetry.Metrics,
) *Storefront {
	return &Storefront{Group: httpapi.NewGroup(app, auth, errs, m), signatures: signatures, log: log}
}

// Register implements Routes.
func (h *Storefront) Register(r *mux.Router) {
	r.Handle("/v0/storefront/orders", h.Auth.RequireAPIKey(h.writeFailure, storefrontScopes, h.receive)).Methods(http.MethodPost)
	r.Handle("/v0/storefront/orders/{orderId}", h.Auth.RequireScope(domain.ScopeShipments, h.receipt)).Methods(http.MethodGet)
}

// intakeError is the error body of the order intake:
// {"success": false, "error": "<code>", ...}.
type intakeError struct {
	Success     bool     `json:"success"`
	Error       string   `json:"error"`
	Message     string   `json:"message,omitempty"`
	SKUs        []string `json:"skus,omitempty"`
	LineItemIDs []string `json:"lineItemIds,omitempty"`
	Missing     []string `json:"missing,omitempty"`
	status      int
}

// intakeResult is the success body of the order intake.
type intakeResult struct {
	Success    bool    `json:"success"`
	ShipmentID *string `json:"shipmentId"`
	Duplicate  bool    `json:"duplicate,omitempty"`
	Skipped    string  `json:"skipped,omitempty"`
}

// receive runs the intake's checks after the key's (RequireAPIKey) in
// their documented order — body size, media type, (signature), JSON shape —
// and hands the order to the use case, which checks SKUs and the warehouse.
func (h *Storefront) receive(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	p := httpapi.PrincipalFrom(ctx)
	span := trace.SpanFromContext(ctx)
	span.SetAttributes(attribute.String("organization.id", p.OrganizationID))

	body, err := readStorefrontBody(w, r)
	if err != nil {
		h.writeFailure(w, r, err)
		return
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		h.writeFailure(w, r, application.ErrUnsupportedMediaType)
		return
	}
	if err := h.signatures.VerifyStorefrontSignature(ctx, p.OrganizationID, body, r.Header.Get("X-Shopify-Hmac-Sha256")); err != nil {
		h.writeFailure(w, r, err)
		return
	}

	order, refused := intake.DecodeStorefrontOrder(body)
	if order.ID > 0 {
		span.SetAttributes(attribute.Int64("storefront.order.id", order.ID))
	}
	traceID := ""
	if sc := trace.SpanContextFromContext(ctx); sc.HasTraceID() {
		traceID = sc.TraceID().String()
	}
	if refused != nil {
		// A refusal is a recorded attempt when the order's ID could be read.
		if order.ID > 0 {
			_, _ = h.App.RefuseStorefrontOrder.Handle(ctx, intakeapp.RefuseStorefrontOrder{
				OrganizationID: p.OrganizationID, TraceID: traceID, OrderID: order.ID, OrderNumber: order.OrderNumber, Body: body,
			})
		}
		h.writeFailure(w, r, refused)
		return
	}
	res, err := h.App.ReceiveStorefrontOrder.Handle(ctx, intakeapp.ReceiveStorefrontOrder{
		OrganizationID: p.OrganizationID, TraceID: traceID, Order: order, Body: body,
	})
	if err != nil {
		h.writeFailure(w, r, err)
		return
	}
	span.SetAttributes(attribute.Bool("storefront.duplicate", res.Duplicate))
	out := intakeResult{Success: true, Duplicate: res.Duplicate, Skipped: string(res.Skipped)}
	if res.ShipmentID != "" {
		span.SetAttributes(attribute.String("shipment.id", res.ShipmentID))
		out.ShipmentID = &res.ShipmentID
	}
	countIntakeResult(h.Metrics, res)
	w.Header().Set("Cache-Control", "no-store")
	httpapi.WriteJSON(w, http.StatusOK, out)
}

// readStorefrontBody reads the whole body, refusing one over
// StorefrontBodyLimit (before reading it when Content-Length says so).
func readStorefrontBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	tooLarge := fmt.Errorf("the body is larger than %d bytes: %w", StorefrontBodyLimit, application.ErrPayloadTooLarge)
	if r.ContentLength > StorefrontBodyLimit {
		return nil, tooLarge
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, StorefrontBodyLimit))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, tooLarge
		}
		return nil, fmt.Errorf("read the body: %w", domain.Invalid("body", "could not be read"))
	}
	return body, nil
}

// writeFailure answers an error in the intake's shape (AnswerFor of its
// kind): refusals with their code and the members that explain them,
// faults with 503 or 500 (logged once, with the trace ID; never sent).
func (h *Storefront) writeFailure(w http.ResponseWriter, r *http.Request, err error) {
	e := intakeErrorOf(err)
	httpapi.NoteError(h.log, r, err)
	httpapi.SetRetryAfter(w, e.status)
	w.Header().Set("Cache-Control", "no-store")
	countIntakeError(h.Metrics, e)
	httpapi.WriteJSON(w, e.status, e)
}

// intakeErrorOf is the intake's answer to err (AnswerFor of its kind): its
// code and the members that explain it.
func intakeErrorOf(err error) intakeError {
	a := httpapi.AnswerFor(application.KindOf(err))
	e := intakeError{status: a.Status, Error: a.Intake, Message: a.Detail}
	var (
		ve *domain.ValidationError
		us *domain.UnknownSKUsError
		ms *domain.MissingSKUError
		se *accessports.InsufficientScopeError
	)
	switch {
	case errors.As(err, &ve):
		e.Message = ve.Field + ": " + ve.Reason
	case errors.As(err, &us):
		e.SKUs = us.SKUs
	case errors.As(err, &ms):
		e.LineItemIDs = make([]string, len(ms.LineItemIDs))
		for i, id := range ms.LineItemIDs {
			e.LineItemIDs[i] = strconv.FormatInt(id, 10)
		}
	case errors.As(err, &se):
		e.Message, e.Missing = "the API key "+se.Error(), httpapi.ScopeNames(se.Missing)
	}
	return e
}
