package domain_test

import (
	"errors"
	"testing"

	"github.com/acme3pl/fulfillment/domain"
)

func TestParseScope(t *testing.T) {
	for _, s := range domain.Scopes {
		if got, err := domain.ParseScope(string(s)); err != nil || got != s {
			t.Errorf("ParseScope(%q) = %q, %v", s, got, err)
		}
	}
	for _, s := range []string{"", "Shipments", "shipments ", "openid", "admin"} {
		var ve *domain.ValidationError
		if _, err := domain.ParseScope(s); !errors.As(err, &ve) || ve.Field != "scopes" {
			t.Errorf("ParseScope(%q): %v, want a validation error of scopes", s, err)
		}
	}
}
