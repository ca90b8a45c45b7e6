package domain

import (
	"errors"
	"fmt"
	"strings"
)

// The closed set of sentinel errors of the domain. Adapters map them to
// transport codes; callers match them with errors.Is.
var (
	// ErrNotFound: the record does not exist or is not visible to the caller.
	ErrNotFound = errors.New("not found")
	// ErrInvalidState: the aggregate's state does not allow the transition.
	ErrInvalidState = errors.New("invalid state")
	// ErrConflict: a unique fact already exists (for example a second record
	// with the same natural key).
	ErrConflict = errors.New("conflict")
	// ErrNoWarehouse: the organization has no active warehouse.
	ErrNoWarehouse = errors.New("no active warehouse")
	// ErrUnavailable: a dependency (the database) cannot be reached.
	ErrUnavailable = errors.New("unavailable")
	// ErrTimeout: the answer could not be had in time — the request's
	// deadline passed, a statement ran too long, or a lock held elsewhere was
	// not granted in time. Nothing was changed; asking again later may work.
	ErrTimeout = errors.New("timed out")
	// ErrMissingShippingAddress: a storefront order to ship has no shipping
	// address.
	ErrMissingShippingAddress = errors.New("missing shipping address")
)

// ValidationError reports one invalid field or parameter.
type ValidationError struct {
	Field  string
	Reason string
}

func (e *ValidationError) Error() string {
	return fmt.Sprintf("invalid %s: %s", e.Field, e.Reason)
}

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

// MissingSKUError lists the storefront line items that require shipping but
// carry no SKU, in payload order.
type MissingSKUError struct {
	LineItemIDs []int64
}

func (e *MissingSKUError) Error() string {
	return fmt.Sprintf("%d line item(s) to ship have no sku", len(e.LineItemIDs))
}
