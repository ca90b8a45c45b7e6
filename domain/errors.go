package domain

import (
	"fmt"
	"strings"
)

// The closed set of sentinel errors of the domain, each of its kind (the
// adapters answer a kind, not an error); callers match them with errors.Is.
var (
	// ErrNotFound: the record does not exist or is not visible to the caller.
	ErrNotFound = NewError(KindNotFound, "not found")
	// ErrInvalidState: the aggregate's state does not allow the transition.
	ErrInvalidState = NewError(KindInvalidState, "invalid state")
	// ErrConflict: a unique fact already exists (for example a second record
	// with the same natural key).
	ErrConflict = NewError(KindConflict, "conflict")
	// ErrNoWarehouse: the organization has no active warehouse.
	ErrNoWarehouse = NewError(KindNoWarehouse, "no active warehouse")
	// ErrUnavailable: a dependency (the database) cannot be reached.
	ErrUnavailable = NewError(KindUnavailable, "unavailable")
	// ErrTimeout: the answer could not be had in time — the request's
	// deadline passed, a statement ran too long, or a lock held elsewhere was
	// not granted in time. Nothing was changed; asking again later may work.
	ErrTimeout = NewError(KindTimeout, "timed out")
	// ErrMissingShippingAddress: a storefront order to ship has no shipping
	// address.
	ErrMissingShippingAddress = NewError(KindMissingShippingAddress, "missing shipping address")
)

// ValidationError reports one invalid field or parameter.
type ValidationError struct {
	Field  string
	Reason string
}

func (e *ValidationError) Error() string {
	return fmt.Sprintf("invalid %s: %s", e.Field, e.Reason)
}

// ErrorKind implements KindedError.
func (e *ValidationError) ErrorKind() Kind { return KindInvalid }

// Invalid returns a *ValidationError for field.
func Invalid(field, format string, args ...any) error {
	return &ValidationError{Field: field, Reason: fmt.Sprintf(format, args...)}
}

// UnknownSKUsError lists SKUs that are not in the organization's inventory,
// de-duplicated, in the order they were asked for.
type UnknownSKUsError struct {
	SKUs []string
}

func (e *UnknownSKUsError) Error() string {
	return "unknown skus: " + strings.Join(e.SKUs, ", ")
}

// ErrorKind implements KindedError.
func (e *UnknownSKUsError) ErrorKind() Kind { return KindUnknownSKUs }

// MissingSKUError lists the storefront line items that require shipping but
// carry no SKU, in payload order.
type MissingSKUError struct {
	LineItemIDs []int64
}

func (e *MissingSKUError) Error() string {
	return fmt.Sprintf("%d line item(s) to ship have no sku", len(e.LineItemIDs))
}

// ErrorKind implements KindedError.
func (e *MissingSKUError) ErrorKind() Kind { return KindMissingSKU }
