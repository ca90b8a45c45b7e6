// Package backoffice holds the end-to-end tests of the back office: billing
// (rate cards, closes, the billing CLI, a stress of it), invoices and their
// exports, the charges of receiving's closes, and the operator's CLI usage
// and migration lock. They run beside cmd/fulfillment's, in a test binary
// and a database of their own, so that `go test ./...` runs both halves at
// once; the harness is cmd/fulfillment/internal/e2e.
package backoffice

import (
	"testing"

	"github.com/acme3pl/fulfillment/cmd/fulfillment/internal/e2e"
)

// TestMain runs the tests through the harness; the operations of the
// invoices' API are this package's to call (the others cmd/fulfillment's).
func TestMain(m *testing.M) {
	e2e.Main(m, e2e.Invoices)
}
