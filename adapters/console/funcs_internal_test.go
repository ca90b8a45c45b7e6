package console

import (
	"testing"

	intakeapp "github.com/acme3pl/fulfillment/application/intake"
)

// Every error code a failed order can record has its sentence on the
// failed order's page, and the page names no code the intake does not
// record.
func TestEveryFailedOrderReasonIsExplained(t *testing.T) {
	for _, code := range intakeapp.ReceiptErrorCodes {
		if reason(code) == "" {
			t.Errorf("no sentence for the failed order's reason %q", code)
		}
	}
	if len(reasons) != len(intakeapp.ReceiptErrorCodes) {
		t.Errorf("%d sentences for %d codes: a sentence for a code the intake never records", len(reasons), len(intakeapp.ReceiptErrorCodes))
	}
}
