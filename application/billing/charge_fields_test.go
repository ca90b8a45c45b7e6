package billing_test

import (
	"errors"
	"testing"

	billingapp "github.com/acme3pl/fulfillment/application/billing"
)

func TestParseChargeFields(t *testing.T) {
	if c, err := billingapp.ParseChargeFields("1.5", "-50000", "2026-11-30"); err != nil || c != -50000 {
		t.Fatalf("got %d %v", c, err)
	}
	for _, tc := range []struct{ q, c, d, field string }{
		{"0", "1", "", "quantity"}, {"1.2345", "1", "", "quantity"}, {"x", "1", "", "quantity"},
		{"1", "0", "", "unitCost"}, {"1", "1.5", "", "unitCost"}, {"1", "1", "2026-02-30", "date"},
	} {
		_, err := billingapp.ParseChargeFields(tc.q, tc.c, tc.d)
		var bad *billingapp.ChargeFieldError
		if !errors.As(err, &bad) || bad.Field != tc.field {
			t.Errorf("%v: %v, want a field error of %s", tc, err, tc.field)
		}
	}
}
