package domain_test

import (
	"regexp"
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

// ValidID is the pattern below, checked by hand: every string of up to three
// bytes from an alphabet of the pattern's edges, and the length bounds, get
// the pattern's answer.
func TestValidIDIsItsPattern(t *testing.T) {
	pattern := regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_\-]{0,63}$`)
	alphabet := []string{"a", "z", "A", "Z", "0", "9", "_", "-", "@", "[", "`", "{", "/", ":", " ", ".", "\n", "\x00", "\xff", "ë"}
	check := func(s string) {
		if got, want := domain.ValidID(s), pattern.MatchString(s); got != want {
			t.Errorf("ValidID(%q) = %v, the pattern says %v", s, got, want)
		}
	}
	var build func(prefix string, depth int)
	build = func(prefix string, depth int) {
		check(prefix)
		for _, c := range alphabet {
			if depth < 3 {
				build(prefix+c, depth+1)
			}
		}
	}
	build("", 0)
	for n := 62; n <= 66; n++ {
		check(strings.Repeat("a", n))
		check("a" + strings.Repeat("-", n-1))
	}
}
