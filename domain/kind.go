package domain

// Kind is what an error means to the service, whatever wraps it. Each error
// says its own kind (KindedError): it is declared with it, beside the error,
// so a new error is one declaration and the application's KindOf needs no
// list of errors. The adapters decide how each kind is answered (the HTTP
// adapter's status and codes, the CLI's exit status). Its value is the name
// logs and metrics tell it apart by.
type Kind string

// The kinds of error, one list (kind_test.go reads it). The first four (a
// client gone, and the faults of a shed request, a timeout, an unreachable
// database) win wherever they are in an error's chain, in this order
// (application.KindOf); otherwise an error's kind is that of the outermost
// error of its chain that says one.
const (
	KindClientGone             Kind = "client_gone"   // the caller went away before the answer (context.Canceled)
	KindShed                   Kind = "shed"          // application.ErrOverloaded
	KindTimeout                Kind = "timeout"       // the deadline passed, or a lock was not granted in time
	KindUnavailable            Kind = "unavailable"   // the database cannot be reached
	KindInvalid                Kind = "invalid"       // a *ValidationError
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
	KindPastBounds             Kind = "past_bounds" // billing.ErrPastBounds: an operator's charge past a period's bounds
	KindInternal               Kind = "internal"    // no other kind: a bug
)

// KindedError is an error that says its kind: the domain's errors, the
// ports', and the application's refusals implement it. (The method is not
// named Kind: several errors have a field of that name, the kind of item.)
type KindedError interface {
	error
	ErrorKind() Kind
}

// NewError returns a sentinel error of kind k with message msg: like
// errors.New, matched with errors.Is, and it says its kind.
func NewError(k Kind, msg string) error { return &kindedError{kind: k, msg: msg} }

type kindedError struct {
	kind Kind
	msg  string
}

func (e *kindedError) Error() string   { return e.msg }
func (e *kindedError) ErrorKind() Kind { return e.kind }

// WithKind returns err, unchanged in message and in what it wraps, but of
// kind k: for an error that wraps errors of other kinds and must be taken
// for k (the outermost kind wins).
func WithKind(k Kind, err error) error { return &withKind{kind: k, err: err} }

type withKind struct {
	kind Kind
	err  error
}

func (e *withKind) Error() string   { return e.err.Error() }
func (e *withKind) Unwrap() error   { return e.err }
func (e *withKind) ErrorKind() Kind { return e.kind }

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
