package application

import (
	"context"
	"errors"
	"net/http"
	"os"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/ports"
)

// Refusals the HTTP adapter makes before a use case runs. They are declared
// here so that every error the service can answer has its row in
// errorTable.
var (
	// ErrPayloadTooLarge: the request body is over the route's limit.
	ErrPayloadTooLarge = errors.New("payload too large")
	// ErrUnsupportedMediaType: the request body is not application/json.
	ErrUnsupportedMediaType = errors.New("unsupported media type")
	// ErrOverloaded: the request was shed: more requests are in flight and
	// waiting than the database can serve within the request deadline.
	ErrOverloaded = errors.New("overloaded")
)

// The kinds of error that the access log and the metrics tell apart by
// name (every row of errorTable has a Kind; these are the ones read
// outside it).
const (
	KindShed    = "shed"
	KindTimeout = "timeout"
)

// ErrorClass is how the service answers one kind of error.
type ErrorClass struct {
	// Kind names the row in logs and metrics ("timeout", "unknown_skus", ...).
	Kind string
	// Status is the HTTP status of the answer.
	Status int
	// ProblemCode is the `code` of a problem+json answer (every route but
	// the order intake); IntakeCode the `error` of the order intake's
	// answer. They differ only where the intake's storefront-facing words
	// differ (invalid_payload, invalid_api_key).
	ProblemCode, IntakeCode string
	// Detail is the human sentence sent with it, unless the error carries a
	// more precise one of its own (a *domain.ValidationError).
	Detail string
	// Fault is true for errors of the service (the database is away, the
	// deadline passed, a bug), which are logged and mark the use case's span
	// as failed; false for refusals of the request, which are normal
	// outcomes.
	Fault bool
}

// Refused tells a refusal that the order itself causes (400 or 422), which
// the order intake records as a failed attempt in the delivery's own
// transaction.
func (c ErrorClass) Refused() bool {
	return c.Status == http.StatusBadRequest || c.Status == http.StatusUnprocessableEntity
}

// errorTable is the one place that says how each kind of error is
// answered. Classify takes the first row that matches, so the order
// matters where one error wraps another (a client that went away before a
// timeout, a timeout before an unreachable database).
var errorTable = []struct {
	match func(error) bool
	class ErrorClass
}{
	{is(context.Canceled), ErrorClass{Kind: "client_gone", Status: StatusClientClosedRequest,
		ProblemCode: "client_closed_request", IntakeCode: "client_closed_request",
		Detail: "the client closed the connection before the answer"}},
	{is(ErrOverloaded), ErrorClass{Kind: KindShed, Status: http.StatusServiceUnavailable,
		ProblemCode: "unavailable", IntakeCode: "unavailable",
		Detail: "the service is overloaded; retry later", Fault: true}},
	{anyOf(is(domain.ErrTimeout), is(context.DeadlineExceeded), is(os.ErrDeadlineExceeded)), ErrorClass{
		Kind: KindTimeout, Status: http.StatusServiceUnavailable, ProblemCode: "unavailable", IntakeCode: "unavailable",
		Detail: "the request could not be answered in time; retry later", Fault: true}},
	{is(domain.ErrUnavailable), ErrorClass{Kind: "unavailable", Status: http.StatusServiceUnavailable,
		ProblemCode: "unavailable", IntakeCode: "unavailable",
		Detail: "the database cannot be reached; retry later", Fault: true}},

	{as[*domain.ValidationError], ErrorClass{Kind: "invalid", Status: http.StatusBadRequest,
		ProblemCode: "invalid_parameter", IntakeCode: "invalid_payload", Detail: "the request is malformed"}},
	{is(ErrPayloadTooLarge), ErrorClass{Kind: "payload_too_large", Status: http.StatusRequestEntityTooLarge,
		ProblemCode: "payload_too_large", IntakeCode: "payload_too_large", Detail: "the body is larger than the limit"}},
	{is(ErrUnsupportedMediaType), ErrorClass{Kind: "unsupported_media_type", Status: http.StatusUnsupportedMediaType,
		ProblemCode: "unsupported_media_type", IntakeCode: "unsupported_media_type",
		Detail: "the body must be JSON with Content-Type: application/json"}},
	{is(ports.ErrInvalidSignature), ErrorClass{Kind: "invalid_signature", Status: http.StatusUnauthorized,
		ProblemCode: "invalid_signature", IntakeCode: "invalid_signature",
		Detail: "X-Shopify-Hmac-Sha256 is not the HMAC-SHA256 of the body under the organization's webhook secret"}},
	{is(ports.ErrInvalidCredentials), ErrorClass{Kind: "invalid_credentials", Status: http.StatusUnauthorized,
		ProblemCode: "invalid_token", IntakeCode: "invalid_api_key",
		Detail: "the credentials are missing, malformed, expired, revoked or not trusted"}},
	{as[*ports.InsufficientScopeError], ErrorClass{Kind: "insufficient_scope", Status: http.StatusForbidden,
		ProblemCode: "insufficient_scope", IntakeCode: "insufficient_scope", Detail: "the credentials lack a scope"}},
	{is(domain.ErrNotFound), ErrorClass{Kind: "not_found", Status: http.StatusNotFound,
		ProblemCode: "not_found", IntakeCode: "not_found", Detail: "the record does not exist"}},
	{is(domain.ErrInvalidState), ErrorClass{Kind: "invalid_state", Status: http.StatusConflict,
		ProblemCode: "invalid_state", IntakeCode: "invalid_state", Detail: "the record's state does not allow this"}},
	{is(domain.ErrPayloadNotKept), ErrorClass{Kind: "payload_not_kept", Status: http.StatusConflict,
		ProblemCode: "payload_not_kept", IntakeCode: "payload_not_kept",
		Detail: "the order failed, but its body is no longer kept: it cannot be replayed"}},
	{is(domain.ErrConflict), ErrorClass{Kind: "conflict", Status: http.StatusConflict,
		ProblemCode: "conflict", IntakeCode: "conflict", Detail: "a record with this identity exists already"}},
	{as[*domain.UnknownItemsError], ErrorClass{Kind: "unknown_items", Status: http.StatusUnprocessableEntity,
		ProblemCode: "unknown_items", IntakeCode: "unknown_items", Detail: "these items are not records of the organization"}},
	{as[*domain.InsufficientStockError], ErrorClass{Kind: "insufficient_stock", Status: http.StatusUnprocessableEntity,
		ProblemCode: "insufficient_stock", IntakeCode: "insufficient_stock",
		Detail: "the warehouse does not hold enough of these cartons; nothing was reserved"}},
	{is(domain.ErrInvalidWarehouse), ErrorClass{Kind: "invalid_warehouse", Status: http.StatusUnprocessableEntity,
		ProblemCode: "invalid_warehouse", IntakeCode: "invalid_warehouse",
		Detail: "warehouseId is not an active warehouse of the organization"}},
	{as[*domain.UnknownSKUsError], ErrorClass{Kind: "unknown_skus", Status: http.StatusUnprocessableEntity,
		ProblemCode: "unknown_skus", IntakeCode: "unknown_skus", Detail: "these SKUs are not in the organization's inventory"}},
	{as[*domain.MissingSKUError], ErrorClass{Kind: "missing_sku", Status: http.StatusUnprocessableEntity,
		ProblemCode: "missing_sku", IntakeCode: "missing_sku", Detail: "these line items require shipping but have no SKU"}},
	{is(domain.ErrMissingShippingAddress), ErrorClass{Kind: "missing_shipping_address", Status: http.StatusUnprocessableEntity,
		ProblemCode: "missing_shipping_address", IntakeCode: "missing_shipping_address",
		Detail: "the order has no shipping_address object"}},
	{is(domain.ErrNoWarehouse), ErrorClass{Kind: "no_warehouse", Status: http.StatusUnprocessableEntity,
		ProblemCode: "no_warehouse", IntakeCode: "no_warehouse", Detail: "the organization has no active warehouse"}},
}

// internalError is the class of every error no row matches: a bug.
var internalError = ErrorClass{Kind: "internal", Status: http.StatusInternalServerError,
	ProblemCode: "internal", IntakeCode: "internal",
	Detail: "an internal error occurred; quote the trace ID to support", Fault: true}

// StatusClientClosedRequest is the status logged and counted for a client
// that went away before its answer (nginx's 499): not an error of the
// service, and never seen by the client.
const StatusClientClosedRequest = 499

// Classify returns the class of err; nil has none (the zero class).
func Classify(err error) ErrorClass {
	if err == nil {
		return ErrorClass{}
	}
	for _, row := range errorTable {
		if row.match(err) {
			return row.class
		}
	}
	return internalError
}

func is(target error) func(error) bool {
	return func(err error) bool { return errors.Is(err, target) }
}

func as[T error](err error) bool {
	var t T
	return errors.As(err, &t)
}

func anyOf(ms ...func(error) bool) func(error) bool {
	return func(err error) bool {
		for _, m := range ms {
			if m(err) {
				return true
			}
		}
		return false
	}
}
