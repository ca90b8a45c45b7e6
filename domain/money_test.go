package domain_test

import (
	"math"
	"testing"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/domaintest"
)

func TestParseQuantity(t *testing.T) {
	tests := []struct {
		in      string
		want    int64 // thousandths
		wantErr error
	}{
		{in: "62", want: 62_000},
		{in: "1.5", want: 1_500},
		{in: "0.125", want: 125},
		{in: "0.005", want: 5},
		{in: "007", want: 7_000},
		{in: "62.0", want: 62_000},
		{in: "0", want: 0},
		{in: "9223372036854775.807", want: math.MaxInt64},
		{in: "9223372036854775.808", wantErr: domaintest.Invalid("quantity")}, // one thousandth over int64
		{in: "9223372036854775.999", wantErr: domaintest.Invalid("quantity")},
		{in: "9223372036854776", wantErr: domaintest.Invalid("quantity")},
		{in: "99999999999999999999", wantErr: domaintest.Invalid("quantity")},
		{in: "", wantErr: domaintest.Invalid("quantity")},
		{in: ".5", wantErr: domaintest.Invalid("quantity")},
		{in: "1.", wantErr: domaintest.Invalid("quantity")},
		{in: "1.2345", wantErr: domaintest.Invalid("quantity")},
		{in: "-1", wantErr: domaintest.Invalid("quantity")},
		{in: "+1", wantErr: domaintest.Invalid("quantity")},
		{in: "1e3", wantErr: domaintest.Invalid("quantity")},
		{in: "1,5", wantErr: domaintest.Invalid("quantity")},
		{in: " 1", wantErr: domaintest.Invalid("quantity")},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := domain.ParseQuantity(tt.in)
			domaintest.MatchErr(t, err, tt.wantErr)
			if err == nil && got.Milli() != tt.want {
				t.Fatalf("ParseQuantity(%q) = %d thousandths, want %d", tt.in, got.Milli(), tt.want)
			}
		})
	}
}

func TestQuantityFromMilli(t *testing.T) {
	tests := []struct {
		in      int64
		wantErr error
	}{
		{in: 0},
		{in: 1},
		{in: math.MaxInt64},
		{in: -1, wantErr: domaintest.Invalid("quantity")},
		{in: math.MinInt64, wantErr: domaintest.Invalid("quantity")},
	}
	for _, tt := range tests {
		q, err := domain.QuantityFromMilli(tt.in)
		domaintest.MatchErr(t, err, tt.wantErr)
		if err == nil && q.Milli() != tt.in {
			t.Fatalf("QuantityFromMilli(%d).Milli() = %d", tt.in, q.Milli())
		}
	}
}

func TestQuantityString(t *testing.T) {
	tests := []struct {
		milli int64
		want  string
	}{
		{0, "0"},
		{62_000, "62"},
		{1_500, "1.5"},
		{1_010, "1.01"},
		{125, "0.125"},
		{5, "0.005"},
		{math.MaxInt64, "9223372036854775.807"},
	}
	for _, tt := range tests {
		q := domaintest.Milli(t, tt.milli)
		if got := q.String(); got != tt.want {
			t.Errorf("Quantity(%d).String() = %q, want %q", tt.milli, got, tt.want)
		}
		// The text form reads back to the same quantity: it is how
		// quantities travel to and from the database.
		back, err := domain.ParseQuantity(q.String())
		if err != nil || back != q {
			t.Errorf("ParseQuantity(%q) = %v, %v; want %d thousandths", q.String(), back.Milli(), err, tt.milli)
		}
	}
}

func TestLineTotal(t *testing.T) {
	tests := []struct {
		name     string
		quantity int64 // thousandths
		unitCost int64
		want     int64
		wantErr  error
	}{
		{name: "whole quantity", quantity: 62_000, unitCost: 25, want: 1_550},
		{name: "zero quantity", quantity: 0, unitCost: math.MaxInt64, want: 0},
		{name: "zero cost", quantity: 5_000, unitCost: 0, want: 0},
		{name: "half cent rounds away from zero", quantity: 1_500, unitCost: 999, want: 1_499}, // 1498.5
		{name: "2.5 rounds up, not to even", quantity: 2_500, unitCost: 1, want: 3},
		{name: "3.5 rounds up", quantity: 3_500, unitCost: 1, want: 4},
		{name: "0.5 rounds up", quantity: 500, unitCost: 1, want: 1},
		{name: "0.499 rounds down", quantity: 499, unitCost: 1, want: 0},
		{name: "0.005 × 1 rounds down to 0", quantity: 5, unitCost: 1, want: 0},
		{name: "0.005 × 100 is half a cent", quantity: 5, unitCost: 100, want: 1},
		{name: "0.001 × 500 is half a cent", quantity: 1, unitCost: 500, want: 1},
		{name: "0.001 × 499 stays under half", quantity: 1, unitCost: 499, want: 0},
		{name: "0.001 × 1501 is 1.501", quantity: 1, unitCost: 1_501, want: 2},
		{name: "1.333 × 3 is 3.999", quantity: 1_333, unitCost: 3, want: 4},
		{name: "0.125 × 1000", quantity: 125, unitCost: 1_000, want: 125},
		{name: "largest cost at quantity 1", quantity: 1_000, unitCost: math.MaxInt64, want: math.MaxInt64},
		{name: "largest quantity at cost 1", quantity: math.MaxInt64, unitCost: 1, want: 9_223_372_036_854_776}, // …775.807 rounds up
		{name: "product beyond 128/1000 bits", quantity: math.MaxInt64, unitCost: math.MaxInt64, wantErr: domain.ErrOverflow},
		{name: "just over int64", quantity: 1_001, unitCost: math.MaxInt64, wantErr: domain.ErrOverflow},
		{name: "2 × half of int64", quantity: 2_000, unitCost: math.MaxInt64/2 + 1, wantErr: domain.ErrOverflow},
		// 15.5 × 1190112520884487201 = 2^64 − 0.5: the quotient is 2^64 − 1
		// and rounding it up must not wrap around to 0.
		{name: "rounding at the top of uint64", quantity: 15_500, unitCost: 1_190_112_520_884_487_201, wantErr: domain.ErrOverflow},
		{name: "negative cost", quantity: 1_000, unitCost: -1, wantErr: domaintest.Invalid("unitCost")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := domain.LineTotal(domaintest.Milli(t, tt.quantity), tt.unitCost)
			domaintest.MatchErr(t, err, tt.wantErr)
			if err == nil && got != tt.want {
				t.Fatalf("LineTotal(%d‰, %d) = %d, want %d", tt.quantity, tt.unitCost, got, tt.want)
			}
		})
	}
}

func TestAddCents(t *testing.T) {
	tests := []struct {
		a, b    int64
		want    int64
		wantErr error
	}{
		{a: 1, b: 2, want: 3},
		{a: math.MaxInt64, b: 0, want: math.MaxInt64},
		{a: math.MaxInt64 - 1, b: 1, want: math.MaxInt64},
		{a: math.MaxInt64, b: 1, wantErr: domain.ErrOverflow},
		{a: math.MaxInt64 / 2, b: math.MaxInt64/2 + 2, wantErr: domain.ErrOverflow},
		{a: math.MinInt64, b: -1, wantErr: domain.ErrOverflow},
		{a: -5, b: 3, want: -2},
	}
	for _, tt := range tests {
		got, err := domain.AddCents(tt.a, tt.b)
		domaintest.MatchErr(t, err, tt.wantErr)
		if err == nil && got != tt.want {
			t.Errorf("AddCents(%d, %d) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}
