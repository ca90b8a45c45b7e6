package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/gorilla/mux"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/acme3pl/fulfillment/adapters/telemetry"
	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/ports"
)

// StorefrontBodyLimit bounds the body of an order delivery (CONTRACT §5).
const StorefrontBodyLimit = 5 << 20

// storefrontScopes are the scopes an intake API key needs, in the order a
// 403 lists the missing ones.
var storefrontScopes = []domain.Scope{domain.ScopeShipments, domain.ScopeInventory}

// Storefront serves the order intake webhook (API key, its own error shape)
// and the order receipt (OAuth, problem+json).
type Storefront struct {
	app        *application.Application
	keys       ports.APIKeyVerifier
	signatures ports.StorefrontSignatureVerifier
	auth       Authenticator
	errors     ErrorMapper
	log        *slog.Logger
	m          *telemetry.Metrics
}

// NewStorefront builds the storefront routes.
func NewStorefront(app *application.Application, keys ports.APIKeyVerifier, signatures ports.StorefrontSignatureVerifier,
	auth Authenticator, errs ErrorMapper, log *slog.Logger, m *telemetry.Metrics,
) *Storefront {
	return &Storefront{app: app, keys: keys, signatures: signatures, auth: auth, errors: errs, log: log, m: m}
}

// Register implements Routes.
func (h *Storefront) Register(r *mux.Router) {
	r.Handle("/v0/storefront/orders", h.auth.Admission.Guard(h.writeFailure, http.HandlerFunc(h.receive))).Methods(http.MethodPost)
	r.Handle("/v0/storefront/orders/{orderId}", h.auth.RequireScope(domain.ScopeShipments, h.receipt)).Methods(http.MethodGet)
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

// receive runs the intake's checks in their documented order — key, body
// size, media type, (signature), JSON shape — and hands the order to the
// use case, which checks SKUs and the warehouse.
func (h *Storefront) receive(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	key, ok := bearer(r)
	if !ok {
		h.writeFailure(w, r, fmt.Errorf("no Authorization: Bearer API key: %w", ports.ErrInvalidCredentials))
		return
	}
	p, err := h.keys.VerifyAPIKey(ctx, key)
	if err != nil {
		h.writeFailure(w, r, err)
		return
	}
	var missing []domain.Scope
	for _, s := range storefrontScopes {
		if !p.Has(s) {
			missing = append(missing, s)
		}
	}
	if len(missing) > 0 {
		h.writeFailure(w, r, &ports.InsufficientScopeError{Missing: missing})
		return
	}
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

	order, decodeErr := DecodeStorefrontOrder(body)
	if order.ID > 0 {
		span.SetAttributes(attribute.Int64("storefront.order.id", order.ID))
	}
	traceID := ""
	if sc := trace.SpanContextFromContext(ctx); sc.HasTraceID() {
		traceID = sc.TraceID().String()
	}
	res, err := h.app.Commands.ReceiveStorefrontOrder.Handle(ctx, application.ReceiveStorefrontOrder{
		OrganizationID: p.OrganizationID, TraceID: traceID, Order: order, Refused: decodeErr,
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
	countIntakeResult(h.m, res)
	w.Header().Set("Cache-Control", "no-store")
	WriteJSON(w, http.StatusOK, out)
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

// writeFailure answers an error in the intake's shape, by the one error
// table (application.Classify): refusals with their code and the members
// that explain them, faults with 503 or 500 (logged once, with the trace
// ID; never sent).
func (h *Storefront) writeFailure(w http.ResponseWriter, r *http.Request, err error) {
	c := application.Classify(err)
	e := intakeError{status: c.Status, Error: c.IntakeCode, Message: c.Detail}
	var (
		ve *domain.ValidationError
		us *domain.UnknownSKUsError
		ms *domain.MissingSKUError
		se *ports.InsufficientScopeError
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
		e.Message, e.Missing = "the API key "+se.Error(), scopeNames(se.Missing)
	case c.Kind == "invalid_credentials":
		h.log.DebugContext(r.Context(), "api key refused", slog.String("reason", err.Error()))
	}
	noteError(h.log, r, err)
	setRetryAfter(w, e.status)
	w.Header().Set("Cache-Control", "no-store")
	e.Success = false
	countIntakeError(h.m, e)
	WriteJSON(w, e.status, e)
}

// OrderReceiptDTO is the order receipt of CONTRACT §5. Storefront IDs are
// decimal strings: they exceed JavaScript's safe integers.
type OrderReceiptDTO struct {
	OrderID         string  `json:"orderId"`
	OrderNumber     *string `json:"orderNumber"`
	Status          string  `json:"status"`
	Attempts        int     `json:"attempts"`
	LastError       *string `json:"lastError"`
	ShipmentID      *string `json:"shipmentId"`
	Skipped         *string `json:"skipped"`
	TraceID         *string `json:"traceId"`
	FirstReceivedAt string  `json:"firstReceivedAt"`
	LastReceivedAt  string  `json:"lastReceivedAt"`
}

func orderReceiptDTO(rec *domain.OrderReceipt) OrderReceiptDTO {
	out := OrderReceiptDTO{
		OrderID: strconv.FormatInt(rec.OrderID(), 10), Status: string(rec.Status()), Attempts: rec.Attempts(),
		LastError: optional(rec.LastError()), ShipmentID: optional(rec.ShipmentID()), Skipped: optional(string(rec.Skipped())),
		TraceID: optional(rec.TraceID()), FirstReceivedAt: FormatTime(rec.FirstReceived()), LastReceivedAt: FormatTime(rec.LastReceived()),
	}
	if n := rec.OrderNumber(); n != nil {
		s := strconv.FormatInt(*n, 10)
		out.OrderNumber = &s
	}
	return out
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// receipt serves GET /v0/storefront/orders/{orderId}. An orderId that is
// not the decimal form of a positive 64-bit integer names no order: 404.
func (h *Storefront) receipt(w http.ResponseWriter, r *http.Request) {
	raw := mux.Vars(r)["orderId"]
	id, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || id <= 0 || strconv.FormatInt(id, 10) != raw {
		h.errors.Write(w, r, domain.ErrNotFound)
		return
	}
	org := PrincipalFrom(r.Context()).OrganizationID
	trace.SpanFromContext(r.Context()).SetAttributes(attribute.String("organization.id", org),
		attribute.Int64("storefront.order.id", id))
	rec, err := h.app.Queries.GetOrderReceipt.Handle(r.Context(), application.GetOrderReceipt{OrganizationID: org, OrderID: id})
	if err != nil {
		h.errors.Write(w, r, err)
		return
	}
	WriteJSON(w, http.StatusOK, orderReceiptDTO(rec))
}

// The storefront's order payload, as far as the intake reads it. Mapped
// strings are plain strings: JSON null leaves them "". Integers go through
// jsonInt, never float64. Unknown fields are ignored.
type orderPayload struct {
	ID              jsonInt            `json:"id"`
	OrderNumber     jsonInt            `json:"order_number"`
	Test            json.RawMessage    `json:"test"`
	CancelledAt     json.RawMessage    `json:"cancelled_at"`
	Note            string             `json:"note"`
	ShippingAddress json.RawMessage    `json:"shipping_address"`
	LineItems       *[]lineItemPayload `json:"line_items"`
}

type addressPayload struct {
	Name         string `json:"name"`
	Company      string `json:"company"`
	Address1     string `json:"address1"`
	Address2     string `json:"address2"`
	City         string `json:"city"`
	ProvinceCode string `json:"province_code"`
	Zip          string `json:"zip"`
	CountryCode  string `json:"country_code"`
	Phone        string `json:"phone"`
}

type lineItemPayload struct {
	ID               jsonInt         `json:"id"`
	SKU              string          `json:"sku"`
	Quantity         jsonInt         `json:"quantity"`
	RequiresShipping json.RawMessage `json:"requires_shipping"`
}

// jsonInt is a JSON integer decoded exactly into an int64 from its digits
// (Shopify's IDs exceed 2^53, which float64 cannot hold). Anything else — a
// fraction, an exponent, a string, out of range — is kept as invalid, so
// the decoder can name the field.
type jsonInt struct {
	Value   int64
	Set     bool // a valid integer was given
	Invalid bool // a value other than null and an integer was given
}

// UnmarshalJSON implements json.Unmarshaler; it never fails, so that one
// bad number does not hide the rest of the document.
func (n *jsonInt) UnmarshalJSON(b []byte) error {
	*n = jsonInt{}
	if string(b) == "null" {
		return nil
	}
	// A bad number marks the field invalid instead of failing the decode.
	if v, err := strconv.ParseInt(string(b), 10, 64); err == nil {
		n.Value, n.Set = v, true
	} else {
		n.Invalid = true
	}
	return nil
}

func (n jsonInt) positive() bool { return n.Set && n.Value > 0 }

func (n jsonInt) ptr() *int64 {
	if !n.Set {
		return nil
	}
	v := n.Value
	return &v
}

// DecodeStorefrontOrder reads an order-creation payload. Its errors are
// *domain.ValidationError (answered 400 invalid_payload): not a JSON object,
// id missing or not a positive integer, a mapped field of the wrong type,
// line_items missing, a quantity that is not a 64-bit integer, a NUL
// character (PostgreSQL text cannot hold it). Whether a quantity is within
// bounds is the domain's rule, checked by the use case. The returned order carries the id
// whenever it could be read, also with an error, so that the failed attempt
// can be recorded.
func DecodeStorefrontOrder(body []byte) (application.StorefrontOrder, error) {
	var p orderPayload
	err := json.Unmarshal(body, &p)
	var syntaxErr *json.SyntaxError
	var typeErr *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntaxErr) || (err != nil && !errors.As(err, &typeErr)):
		return application.StorefrontOrder{}, domain.Invalid("body", "is not valid JSON")
	case errors.As(err, &typeErr) && typeErr.Field == "":
		return application.StorefrontOrder{}, domain.Invalid("body", "must be a JSON object")
	}
	if !p.ID.positive() {
		return application.StorefrontOrder{}, domain.Invalid("id", "must be a positive integer")
	}
	order := application.StorefrontOrder{ID: p.ID.Value, OrderNumber: p.OrderNumber.ptr()}
	if typeErr != nil {
		return order, domain.Invalid(typeErr.Field, "must be a JSON %s", jsonKind(typeErr.Type.String()))
	}
	if p.LineItems == nil {
		return order, domain.Invalid("line_items", "is required")
	}
	order.Test = isLiteral(p.Test, "true")
	order.Cancelled = len(bytes.TrimSpace(p.CancelledAt)) > 0 && !isLiteral(p.CancelledAt, "null") && !isLiteral(p.CancelledAt, `""`)
	order.Note = p.Note
	strs := []struct{ field, value string }{{"note", p.Note}}
	if sa := bytes.TrimSpace(p.ShippingAddress); len(sa) > 0 && sa[0] == '{' {
		var a addressPayload
		if err := json.Unmarshal(sa, &a); err != nil {
			field := "shipping_address"
			if errors.As(err, &typeErr) {
				field += "." + typeErr.Field
			}
			return order, domain.Invalid(field, "must be a JSON string")
		}
		order.ShippingAddress = &domain.ShippingAddress{
			Name: a.Name, Company: a.Company, Address1: a.Address1, Address2: a.Address2, City: a.City,
			State: a.ProvinceCode, Zip: a.Zip, Country: a.CountryCode, Phone: a.Phone,
		}
		strs = append(strs,
			struct{ field, value string }{"shipping_address", a.Name + a.Company + a.Address1 + a.Address2 + a.City + a.ProvinceCode + a.Zip + a.CountryCode + a.Phone})
	}
	order.Lines = make([]application.StorefrontLine, len(*p.LineItems))
	for i, l := range *p.LineItems {
		if !l.Quantity.Set {
			return order, domain.Invalid(fmt.Sprintf("line_items[%d].quantity", i), "must be an integer")
		}
		order.Lines[i] = application.StorefrontLine{
			ID: l.ID.Value, SKU: l.SKU, Quantity: l.Quantity.Value,
			RequiresShipping: !isLiteral(l.RequiresShipping, "false"),
		}
		strs = append(strs, struct{ field, value string }{fmt.Sprintf("line_items[%d].sku", i), l.SKU})
	}
	for _, s := range strs {
		if strings.IndexByte(s.value, 0) >= 0 {
			return order, domain.Invalid(s.field, "must not contain U+0000")
		}
	}
	return order, nil
}

func isLiteral(raw json.RawMessage, lit string) bool {
	return string(bytes.TrimSpace(raw)) == lit
}

// jsonKind names the JSON type a Go type decodes from.
func jsonKind(goType string) string {
	switch {
	case goType == "string":
		return "string"
	case strings.HasPrefix(goType, "[]"), strings.HasPrefix(goType, "*[]"):
		return "array"
	}
	return "object"
}
