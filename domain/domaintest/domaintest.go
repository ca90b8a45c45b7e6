// Package domaintest holds the helpers the domain packages' tests share.
package domaintest

import (
	"errors"
	"testing"

	"github.com/acme3pl/fulfillment/domain"
)

// MatchErr checks err against want: nil means no error; a
// *domain.ValidationError matches by field; anything else by errors.Is.
func MatchErr(t *testing.T, err, want error) {
	t.Helper()
	var wantVE *domain.ValidationError
	switch {
	case want == nil:
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
	case errors.As(want, &wantVE):
		var ve *domain.ValidationError
		if !errors.As(err, &ve) || ve.Field != wantVE.Field {
			t.Fatalf("error %v, want a validation error of %q", err, wantVE.Field)
		}
	default:
		if !errors.Is(err, want) {
			t.Fatalf("error %v, want %v", err, want)
		}
	}
}

// Invalid is the validation error of a field, as MatchErr matches it.
func Invalid(field string) error { return &domain.ValidationError{Field: field} }

// Milli is a quantity of m thousandths.
func Milli(t *testing.T, m int64) domain.Quantity {
	t.Helper()
	q, err := domain.QuantityFromMilli(m)
	if err != nil {
		t.Fatal(err)
	}
	return q
}
