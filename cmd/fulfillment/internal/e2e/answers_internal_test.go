package e2e

import (
	"testing"

	"github.com/acme3pl/fulfillment/api/apitest"
)

// The end-to-end packages split the document's operations between them:
// every operation is one package's to call, the invoices' are backoffice's,
// and a package whose tests called none of its own is told which.
func TestPackagesSplitTheOperations(t *testing.T) {
	v, err := apitest.New()
	if err != nil {
		t.Fatal(err)
	}
	rest := Besides(Invoices)
	var invoices []string
	for _, op := range v.Operations() {
		if Invoices(op) == rest(op) {
			t.Errorf("%s: Invoices %t, Besides(Invoices) %t: want exactly one package to answer for it", op, Invoices(op), rest(op))
		}
		if Invoices(op) {
			invoices = append(invoices, op.String())
		}
	}
	want := []string{"GET /v0/invoices", "GET /v0/invoices/{id}", "GET /v0/invoices/{id}/charges"}
	if len(invoices) != len(want) {
		t.Fatalf("Invoices selects %v, want %v", invoices, want)
	}
	for i := range want {
		if invoices[i] != want[i] {
			t.Errorf("Invoices selects %v, want %v", invoices, want)
		}
	}
	// Nothing called yet: each package is missing every operation it answers for.
	if got := uncalled(v, Invoices); len(got) != len(want) {
		t.Errorf("uncalled(Invoices) = %v, want the %d invoices' operations", got, len(want))
	}
	if got, all := len(uncalled(v, rest)), len(v.Operations())-len(want); got != all {
		t.Errorf("uncalled(Besides(Invoices)) lists %d operations, want %d", got, all)
	}
}
