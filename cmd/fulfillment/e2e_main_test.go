package main

import (
	"testing"

	"github.com/acme3pl/fulfillment/cmd/fulfillment/internal/e2e"
)

// TestMain runs the end-to-end tests of this package through the harness
// (cmd/fulfillment/internal/e2e): every operation of api/openapi.yaml but
// the invoices' is this package's to call (cmd/fulfillment/e2e/backoffice
// calls those).
func TestMain(m *testing.M) {
	e2e.Main(m, e2e.Besides(e2e.Invoices))
}
