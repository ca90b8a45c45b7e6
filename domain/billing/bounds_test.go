package billing_test

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/domain/billing"
)

// op is an operator's charge of one line: quantity in units, unit cost.
func op(title string, units, cost int64) billing.Sum {
	return billing.Sum{Fee: billing.FeeOperator, Title: title, UnitCost: cost, Divisor: 1, Milli: units * 1000, Facts: 1}
}

func TestCheckOperatorCharge(t *testing.T) {
	const bound = billing.MaxPeriodCents
	ship := billing.Sum{Fee: billing.PickPackOrder, Title: "Pick & Pack orders", UnitCost: 100_000_000_000, WarehouseID: "wh",
		Divisor: 1, Milli: 20_000_000, Facts: 20_000} // 2 × 10^15 cents of facts
	tests := []struct {
		name    string
		sums    []billing.Sum
		brought int64
		add     billing.Sum
		refused bool
	}{
		{name: "a line at the bound", add: op("A", 10_000, 100_000_000_000), refused: false},
		{name: "a line past the bound", add: op("A", 10_001, 100_000_000_000), refused: true},
		{name: "the largest quantity at the largest cost", add: op("A", 1_000_000_000, 100_000_000_000), refused: true},
		{name: "its line with an earlier charge past the bound", sums: []billing.Sum{op("A", 6_000, 100_000_000_000)},
			add: op("A", 5_000, 100_000_000_000), refused: true},
		{name: "the period's charges past the bound, lines apart", sums: []billing.Sum{op("A", 6_000, 100_000_000_000)},
			add: op("B", 5_000, 100_000_000_000), refused: true},
		{name: "the period's charges at the bound", sums: []billing.Sum{op("A", 5_000, 100_000_000_000)},
			add: op("B", 5_000, 100_000_000_000), refused: false},
		{name: "credits past the bound", sums: []billing.Sum{op("A", 6_000, -100_000_000_000)},
			add: op("B", 5_000, -100_000_000_000), refused: true},
		{name: "credits with the credit brought forward past the bound", brought: bound / 2,
			add: op("B", 6_000, -100_000_000_000), refused: true},
		{name: "a credit against facts past the bound is not refused", sums: []billing.Sum{ship},
			add: op("B", 1, -100), refused: false},
		{name: "a charge on facts past the bound is", sums: []billing.Sum{ship}, add: op("B", 1, 100), refused: true},
		{name: "a credit bringing a large total down", sums: []billing.Sum{op("A", 9_000, 100_000_000_000)},
			add: op("B", 9_000, -100_000_000_000), refused: false},
		{name: "sums past int64 do not overflow the check", sums: []billing.Sum{{Fee: billing.StorageUnitMonth, Title: "Storage (units)",
			UnitCost: math.MaxInt64, WarehouseID: "wh", Divisor: 30, Milli: math.MaxInt64, Facts: 30}},
			add: op("B", 1, 1), refused: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := billing.CheckOperatorCharge(tt.sums, tt.brought, tt.add)
			if got := errors.Is(err, billing.ErrPastBounds); got != tt.refused {
				t.Fatalf("CheckOperatorCharge = %v, refused %v, want %v", err, got, tt.refused)
			}
		})
	}
}

// Lines never fails, whatever the sums it is given: a line that would take
// the invoice's charges or credits past the ceiling is cut to fit, every
// line's total is its quantity × unit cost, and the lines sum to the total.
func TestLinesNeverOverflow(t *testing.T) {
	huge := func(title string, cost int64, divisor int64) billing.Sum {
		return billing.Sum{Fee: billing.StorageUnitMonth, Title: title, UnitCost: cost, WarehouseID: "wh", Divisor: divisor,
			Milli: math.MaxInt64, Facts: 31}
	}
	cases := [][]billing.Sum{
		{huge("Storage (units)", 100_000_000_000, 31), huge("Storage (cartons)", 100_000_000_000, 31)},
		{huge("Storage (units)", 1, 1), huge("Storage (cartons)", 1, 1), huge("x", 1, 1), huge("y", 1, 1)},
		{huge("Storage (units)", 100_000_000_000, 28), op("Credit", 1_000_000_000, -100_000_000_000),
			huge("c1", -100_000_000_000, 1), huge("c2", -1, 1)},
		{op("Credit", 1, -5), huge("Storage (units)", math.MaxInt64, 1), huge("c", math.MinInt64+1, 1)},
	}
	for i, sums := range cases {
		for _, brought := range []int64{0, 1_000, math.MaxInt64} {
			lines, totals, err := billing.Lines(sums, 100_000_000_000, brought, "November 2026")
			if err != nil {
				t.Fatalf("case %d, brought %d: %v", i, brought, err)
			}
			if !totals.Cut && i != 1 { // case 1: 9.2 × 10^15 units at 1 cent fit
				t.Errorf("case %d: nothing was cut", i)
			}
			var sum, charges, credits int64
			for _, l := range lines {
				want, err := billing.LineTotal(l.Milli, l.UnitCost)
				if err != nil || want != l.Total {
					t.Fatalf("case %d: line %q total %d, want %d (%v)", i, l.Title, l.Total, want, err)
				}
				sum += l.Total
				if l.Total > 0 && l.Fee != billing.FeeCreditForward {
					charges += l.Total
				} else if l.Total < 0 {
					credits -= l.Total
				}
			}
			if sum != totals.Total || totals.Total < 0 || charges > billing.InvoiceCeiling || credits > billing.InvoiceCeiling {
				t.Errorf("case %d, brought %d: lines sum to %d, total %+v, charges %d, credits %d", i, brought, sum, totals, charges, credits)
			}
		}
	}
	// A minimum no card can hold does not overflow either.
	if _, totals, err := billing.Lines([]billing.Sum{op("A", 1, 5)}, math.MaxInt64, math.MaxInt64, "x"); err != nil || totals.Total < 0 {
		t.Errorf("Lines with the largest minimum: %+v, %v", totals, err)
	}
	// Within the ceiling nothing is cut.
	if _, totals, err := billing.Lines([]billing.Sum{op("A", 10_000, 100_000_000_000)}, 0, 0, "x"); err != nil || totals.Cut {
		t.Errorf("Lines within the ceiling: %+v, %v", totals, err)
	}
}

func TestPeriodNames(t *testing.T) {
	cal := billing.NewCalendar(time.UTC)
	at := func(d, h int) time.Time { return time.Date(2026, 12, d, h, 0, 0, 0, time.UTC) }
	names := []struct {
		p    billing.Period
		want string
	}{
		{billing.Period{Start: at(7, 0), End: at(8, 0)}, "December 7, 2026"},
		{billing.Period{Start: at(7, 10), End: at(7, 12)}, "December 7, 2026"},
		{billing.Period{Start: at(1, 0), End: at(7, 10)}, "December 1–7, 2026"},
		{billing.Period{Start: at(1, 0), End: time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)}, "December 2026"},
	}
	for _, n := range names {
		if got := cal.Name(n.p); got != n.want {
			t.Errorf("Name(%v – %v) = %q, want %q", n.p.Start, n.p.End, got, n.want)
		}
	}
	// A late charge's label names the closed period, never the open one.
	closed := []struct {
		at, openStart time.Time
		want          string
	}{
		{at(3, 9), at(7, 10), "December 1–7, 2026"},
		{at(1, 9), at(1, 10), "December 1, 2026"},
		{time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC), at(1, 0), "November 2026"},
		{time.Date(2026, 10, 3, 9, 0, 0, 0, time.UTC), at(7, 10), "October 2026"},
	}
	for _, c := range closed {
		got := cal.ClosedName(c.at, c.openStart)
		open := cal.Name(billing.Period{Start: c.openStart, End: cal.NextMonthStart(c.openStart)})
		if got != c.want || got == open {
			t.Errorf("ClosedName(%v, %v) = %q, want %q (the open invoice is %q)", c.at, c.openStart, got, c.want, open)
		}
	}
}
