package domain_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/acme3pl/fulfillment/domain"
)

// validWarehouse is a warehouse every invariant holds for.
func validWarehouse() domain.Warehouse {
	description := "East coast hub"
	return domain.Warehouse{
		ID:          "wh_east",
		Name:        "East",
		Description: &description,
		Active:      true,
		Address:     domain.Address{Line1: "1 Dock St", City: "Newark", State: "NJ", CountryCode: "US", PostalCode: "07102"},
		Contact:     domain.Contact{Name: "Ops", Email: "ops@example.com"},
		Tags:        []string{"cold", "hazmat"},
	}
}

func TestWarehouseValidate(t *testing.T) {
	tests := []struct {
		name      string
		change    func(*domain.Warehouse)
		wantField string // the field a *domain.ValidationError names; "" for valid
	}{
		{"valid", func(*domain.Warehouse) {}, ""},
		{"no description, no tags, inactive", func(w *domain.Warehouse) { w.Description, w.Tags, w.Active = nil, nil, false }, ""},
		{"empty ID", func(w *domain.Warehouse) { w.ID = "" }, "warehouse.id"},
		{"ID of another shape", func(w *domain.Warehouse) { w.ID = "wh east" }, "warehouse.id"},
		{"ID too long", func(w *domain.Warehouse) { w.ID = strings.Repeat("w", 65) }, "warehouse.id"},
		{"empty name", func(w *domain.Warehouse) { w.Name = "" }, "warehouse.name"},
		{"blank name", func(w *domain.Warehouse) { w.Name = " \t " }, "warehouse.name"},
		{"no country code", func(w *domain.Warehouse) { w.Address.CountryCode = "" }, "warehouse.address.countryCode"},
		{"country code in lower case", func(w *domain.Warehouse) { w.Address.CountryCode = "us" }, "warehouse.address.countryCode"},
		{"alpha-3 country code", func(w *domain.Warehouse) { w.Address.CountryCode = "USA" }, "warehouse.address.countryCode"},
		{"country code with a newline", func(w *domain.Warehouse) { w.Address.CountryCode = "US\n" }, "warehouse.address.countryCode"},
		{"empty tag", func(w *domain.Warehouse) { w.Tags = []string{"cold", ""} }, "warehouse.tags"},
		{"blank tag", func(w *domain.Warehouse) { w.Tags = []string{"  "} }, "warehouse.tags"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := validWarehouse()
			tt.change(&w)
			err := w.Validate()
			if tt.wantField == "" {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			var ve *domain.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("Validate() = %v (%T), want a *domain.ValidationError", err, err)
			}
			if ve.Field != tt.wantField {
				t.Errorf("Validate() names %q, want %q", ve.Field, tt.wantField)
			}
		})
	}
}
