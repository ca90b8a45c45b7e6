package application

import (
	"context"
	"errors"
	"os"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/intake"
	"github.com/acme3pl/fulfillment/domain/shipping"
	"github.com/acme3pl/fulfillment/domain/warehouse"
	accessports "github.com/acme3pl/fulfillment/ports/access"
)

// Refusals the HTTP adapter makes before a use case runs. They are declared
// here so that every error the service can answer has its Kind.
var (
	// ErrPayloadTooLarge: the request body is over the route's limit.
	ErrPayloadTooLarge = errors.New("payload too large")
	// ErrUnsupportedMediaType: the request body is not application/json.
	ErrUnsupportedMediaType = errors.New("unsupported media type")
	// ErrOverloaded: the request was shed: more requests are in flight than
	// the database can serve within the request deadline.
	ErrOverloaded = errors.New("overloaded")
)

// Kind is what an error means to the service, whatever wraps it. The
// application names the kinds; the adapters decide how each is answered
// (the HTTP adapter's status and codes, the CLI's exit status). Its value
// is the name logs and metrics tell it apart by.
type Kind string

// The kinds of error, in the order KindOf tests them (see kinds).
const (
	KindClientGone             Kind = "client_gone"   // the caller went away before the answer
	KindShed                   Kind = "shed"          // ErrOverloaded
	KindTimeout                Kind = "timeout"       // the deadline passed, or a lock was not granted in time
	KindUnavailable            Kind = "unavailable"   // the database cannot be reached
	KindInvalid                Kind = "invalid"       // a *domain.ValidationError
	KindOnHandBound            Kind = "on_hand_bound" // warehouse.ErrOnHandBound: a receipt past the bound of on hand; code invalid_parameter
	KindTooLarge               Kind = "payload_too_large"
	KindUnsupportedMedia       Kind = "unsupported_media_type"
	KindInvalidSignature       Kind = "invalid_signature"
	KindInvalidCredentials     Kind = "invalid_credentials" //nolint:gosec // the name of a kind of error, not a credential
	KindInsufficientScope      Kind = "insufficient_scope"
	KindNotFound               Kind = "not_found"
	KindInvalidState           Kind = "invalid_state"
	KindPayloadNotKept         Kind = "payload_not_kept" // intake.ErrPayloadNotKept: a failed order that cannot be replayed
	KindConflict               Kind = "conflict"
	KindUnknownItems           Kind = "unknown_items"
	KindInsufficientStock      Kind = "insufficient_stock"
	KindOnHandShort            Kind = "on_hand_short" // shipping.ErrNegativeStock (a ship short on hand); code insufficient_stock
	KindInvalidWarehouse       Kind = "invalid_warehouse"
	KindUnknownSKUs            Kind = "unknown_skus"
	KindMissingSKU             Kind = "missing_sku"
	KindMissingShippingAddress Kind = "missing_shipping_address"
	KindNoWarehouse            Kind = "no_warehouse"
	KindReferenceConflict      Kind = "reference_conflict" // a warehouse's reference reported with other content
	KindPeriodClosed           Kind = "period_closed"
	KindUnknownService         Kind = "unknown_service"
	KindInternal               Kind = "internal" // no other kind: a bug
)

// kinds is the one place that says which errors are of which kind. KindOf
// takes the first row that matches, so the order matters where one error
// wraps another (a client that went away before a timeout, a timeout before
// an unreachable database).
var kinds = []struct {
	match func(error) bool
	kind  Kind
}{
	{is(context.Canceled), KindClientGone},
	{is(ErrOverloaded), KindShed},
	{anyOf(is(domain.ErrTimeout), is(context.DeadlineExceeded), is(os.ErrDeadlineExceeded)), KindTimeout},
	{is(domain.ErrUnavailable), KindUnavailable},
	{is(warehouse.ErrOnHandBound), KindOnHandBound}, // before KindInvalid: it wraps the *domain.ValidationError naming the line
	{as[*domain.ValidationError], KindInvalid},
	{is(ErrPayloadTooLarge), KindTooLarge},
	{is(ErrUnsupportedMediaType), KindUnsupportedMedia},
	{is(accessports.ErrInvalidSignature), KindInvalidSignature},
	{is(accessports.ErrInvalidCredentials), KindInvalidCredentials},
	{as[*accessports.InsufficientScopeError], KindInsufficientScope},
	{is(domain.ErrNotFound), KindNotFound},
	{is(domain.ErrInvalidState), KindInvalidState},
	{is(intake.ErrPayloadNotKept), KindPayloadNotKept},
	{is(domain.ErrConflict), KindConflict},
	{as[*shipping.UnknownItemsError], KindUnknownItems},
	{as[*shipping.InsufficientStockError], KindInsufficientStock},
	{is(shipping.ErrNegativeStock), KindOnHandShort}, // a *shipping.OnHandShortageError is one
	{is(domain.ErrInvalidWarehouse), KindInvalidWarehouse},
	{as[*domain.UnknownSKUsError], KindUnknownSKUs},
	{as[*domain.MissingSKUError], KindMissingSKU},
	{is(domain.ErrMissingShippingAddress), KindMissingShippingAddress},
	{is(domain.ErrNoWarehouse), KindNoWarehouse},
	{is(warehouse.ErrReferenceConflict), KindReferenceConflict},
	{is(warehouse.ErrPeriodClosed), KindPeriodClosed},
	{is(warehouse.ErrUnknownService), KindUnknownService},
}

// KindOf returns the kind of err; nil has none ("").
func KindOf(err error) Kind {
	if err == nil {
		return ""
	}
	for _, row := range kinds {
		if row.match(err) {
			return row.kind
		}
	}
	return KindInternal
}

// Fault tells an error of the service (the database is away, the deadline
// passed, a bug), which is logged and marks the use case's span as failed,
// from a refusal of the request, which is a normal outcome.
func (k Kind) Fault() bool {
	switch k {
	case KindShed, KindTimeout, KindUnavailable, KindInternal:
		return true
	}
	return false
}

// Refused tells a refusal that the order itself causes (its content, or the
// organization's data it names), which the order intake records as a
// failed attempt in the delivery's own transaction.
func (k Kind) Refused() bool {
	switch k {
	case KindInvalid, KindUnknownItems, KindInsufficientStock, KindInvalidWarehouse,
		KindUnknownSKUs, KindMissingSKU, KindMissingShippingAddress, KindNoWarehouse:
		return true
	}
	return false
}

// Code is the error code clients read for the kind: an order receipt's
// lastError and the order intake's `error` member. It is the kind's name
// but where the storefront's words differ: the faults a storefront retries
// are all "unavailable", a malformed order is "invalid_payload".
func (k Kind) Code() string {
	switch k {
	case KindClientGone:
		return "client_closed_request"
	case KindShed, KindTimeout:
		return string(KindUnavailable)
	case KindInvalid:
		return "invalid_payload"
	case KindOnHandShort:
		return string(KindInsufficientStock)
	}
	return string(k)
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
