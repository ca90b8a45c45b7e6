package invoicing

import (
	"testing"
)

func TestFillPattern(t *testing.T) {
	for _, tt := range []struct{ term, fill, pattern string }{
		{"storage", "storage", "%storage%"},                           // one word: all of it
		{"storage kitting", "storageqkitting", "%st_r_geqki_ti_g%"},   // the junction, the rest masked
		{"pallets × 99 days", "palletsq99qdays", "%pa_l_tsq99qda_s%"}, // one run of three separators, one filler
		{"pallet storage kitting", "palletqstorageqkitting", "%pa__etqst_r_geqki_ti_g%"},
		{"2026-key", "2026qkey", "%2_26qke_%"},
		{"% off", "qoff", "%qoff%"},            // a filler at an end: one word
		{"y f", "yqf", "%yqf%"},                // one character on each side
		{"zoë — desc", "zoqdesc", "%zoqde_c%"}, // non-ASCII letters are separators too
		{"äpfel", "qpfel", "%qpfel%"},          //
		{"quoted", "quoted", "%quoted%"},       // a real q is a letter
		{`it's "quoted" ?`, "itqsqquotedq", "%itqsqqu__edq%"},
		{"pa", "pa", ""}, // too short: the gram index
		{"#1", "q1", ""}, //
		{`%_\`, "q", ""}, //
		{"ø", "q", ""},   //
		{"東京都", "q", ""}, // no ASCII letter or digit at all
	} {
		if got := FillOf(tt.term); got != tt.fill {
			t.Errorf("fill of %q = %q, want %q", tt.term, got, tt.fill)
		}
		if got := fillPattern(tt.term); got != tt.pattern {
			t.Errorf("pattern of %q = %q, want %q", tt.term, got, tt.pattern)
		}
	}
}
