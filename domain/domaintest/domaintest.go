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

// MatchField checks that err is the validation error of field, or no
// error when field is "".
func MatchField(t *testing.T, err error, field string) {
	t.Helper()
	var want error
	if field != "" {
		want = Invalid(field)
	}
	MatchErr(t, err, want)
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

// Edit is a case of a constructor's table test: the valid parameters
// edited, and the field the constructor refuses ("" when it accepts them).
type Edit[P any] struct {
	Name      string
	Edit      func(p *P)
	WantField string
}

// Edits runs a constructor's table test: each case edits valid()'s
// parameters, and construct answers the validation error of its WantField,
// or no error.
func Edits[P, T any](t *testing.T, valid func() P, construct func(P) (T, error), cases []Edit[P]) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.Name, func(t *testing.T) {
			p := valid()
			tt.Edit(&p)
			_, err := construct(p)
			MatchField(t, err, tt.WantField)
		})
	}
}

// Made is what construct makes of valid()'s parameters edited; an error
// fails the test.
func Made[P, T any](t *testing.T, valid func() P, construct func(P) (T, error), edit func(p *P)) T {
	t.Helper()
	p := valid()
	edit(&p)
	v, err := construct(p)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
