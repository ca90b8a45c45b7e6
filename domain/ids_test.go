package domain_test

import (
	"strings"
	"testing"

	"github.com/acme3pl/fulfillment/domain"
)

func TestValidID(t *testing.T) {
	tests := []struct {
		id   string
		want bool
	}{
		{"wh_east", true},
		{"inv-2026-000123", true},
		{"INV_01HZX3", true},
		{"a", true},
		{"0", true},
		{strings.Repeat("a", 64), true},
		{"", false},
		{strings.Repeat("a", 65), false},
		{"_wh", false},
		{"-wh", false},
		{"wh east", false},
		{"wh.east", false},
		{"wh/east", false},
		{"wh%20east", false},
		{"' OR 1=1", false},
		{"wh_east\n", false},
		{"\nwh_east", false},
		{"wh_ëast", false},
		{"wh_east;", false},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			if got := domain.ValidID(tt.id); got != tt.want {
				t.Errorf("ValidID(%q) = %v, want %v", tt.id, got, tt.want)
			}
		})
	}
}
