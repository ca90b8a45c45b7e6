package billing_test

import (
	"errors"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/billing"
	"github.com/acme3pl/fulfillment/domain/domaintest"
	"github.com/acme3pl/fulfillment/domain/invoicing"
)

func TestDivRound(t *testing.T) {
	tests := []struct{ n, d, want int64 }{
		{n: 0, d: 30, want: 0}, {n: 15, d: 30, want: 1}, {n: 14, d: 30, want: 0}, {n: 45, d: 30, want: 2},
		{n: -15, d: 30, want: -1}, {n: -14, d: 30, want: 0}, {n: 3_720_000, d: 31, want: 120_000},
		{n: 1_000, d: 3, want: 333}, {n: 2_000, d: 3, want: 667}, {n: 7, d: 1, want: 7},
	}
	for _, tt := range tests {
		if got := billing.DivRound(tt.n, tt.d); got != tt.want {
			t.Errorf("DivRound(%d, %d) = %d, want %d", tt.n, tt.d, got, tt.want)
		}
	}
}

// roundHalfAway is the reference: exact rational arithmetic, then rounding
// half away from zero.
func roundHalfAway(r *big.Rat) int64 {
	num, den := new(big.Int).Set(r.Num()), r.Denom()
	neg := num.Sign() < 0
	num.Abs(num)
	q, m := new(big.Int).QuoRem(num, den, new(big.Int))
	if new(big.Int).Mul(m, big.NewInt(2)).Cmp(den) >= 0 {
		q.Add(q, big.NewInt(1))
	}
	if neg {
		q.Neg(q)
	}
	return q.Int64()
}

// Property: the storage quantity and the line total agree with exact
// rational arithmetic rounded once, half away from zero, for random
// unit-days, months and costs, credits included.
func TestArithmeticProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 20_000 {
		days := int64(28 + r.IntN(4))
		unitDays := r.Int64N(10_000_000)
		milli := billing.LineQuantity(unitDays*1000, days)
		if want := roundHalfAway(big.NewRat(unitDays*1000, days)); milli != want {
			t.Fatalf("LineQuantity(%d unit-days, %d days) = %d‰, want %d‰", unitDays, days, milli, want)
		}
		cost := r.Int64N(1_000_000) - 200_000
		got, err := billing.LineTotal(milli, cost)
		if err != nil {
			t.Fatal(err)
		}
		if want := roundHalfAway(new(big.Rat).SetFrac(big.NewInt(milli*cost), big.NewInt(1000))); got != want {
			t.Fatalf("LineTotal(%d‰, %d) = %d, want %d", milli, cost, got, want)
		}
		if cost != 0 {
			neg, _ := billing.LineTotal(milli, -cost)
			if neg != -got {
				t.Fatalf("a credit is not the negated charge: %d vs %d", neg, got)
			}
		}
		minimum, total := r.Int64N(100_000), r.Int64N(100_000)-20_000
		top := billing.MinimumTopUp(minimum, total)
		if top < 0 || (top > 0 && total+top != minimum) || (top == 0 && total < minimum) {
			t.Fatalf("MinimumTopUp(%d, %d) = %d", minimum, total, top)
		}
	}
}

func TestLines(t *testing.T) {
	sums := []billing.Sum{
		{Fee: billing.StorageUnitMonth, Title: "Storage (units)", UnitCost: 30, WarehouseID: "wh_east", Divisor: 30, Milli: 3_600_000, Facts: 30},
		{Fee: billing.PickPackOrder, Title: "Pick & Pack orders", UnitCost: 250, WarehouseID: "wh_east", Divisor: 1, Milli: 2_000, Facts: 2},
		{Fee: billing.SPDCarton, Title: "SPD cartons", UnitCost: 0, WarehouseID: "wh_east", Divisor: 1, Milli: 5_000, Facts: 1},
		{Fee: billing.FeeOperator, Title: "Damage credit", UnitCost: -500, Divisor: 1, Milli: 1_000, Facts: 1, ForPeriod: "October 2026"},
	}
	lines, totals, err := billing.Lines(sums, 0, 0, "November 2026")
	if err != nil {
		t.Fatal(err)
	}
	want := []billing.Line{
		{Fee: billing.PickPackOrder, Title: "Pick & Pack orders", Description: "wh_east: 2 shipments", Milli: 2_000, UnitCost: 250, Total: 500},
		{Fee: billing.StorageUnitMonth, Title: "Storage (units)", Description: "wh_east: 30 days", Milli: 120_000, UnitCost: 30, Total: 3_600},
		{Fee: billing.FeeOperator, Title: "Damage credit", Description: "1 charge (for October 2026)", Milli: 1_000, UnitCost: -500, Total: -500},
	}
	if len(lines) != len(want) || totals != (billing.Totals{Total: 3_600, Charges: 4_100}) {
		t.Fatalf("Lines = %+v %+v, want %+v total 3600", lines, totals, want)
	}
	for i := range want {
		if lines[i] != want[i] {
			t.Errorf("line %d = %+v, want %+v", i, lines[i], want[i])
		}
	}
	if lines, totals, _ := billing.Lines(nil, 0, 0, "x"); len(lines) != 0 || totals != (billing.Totals{}) {
		t.Errorf("no charges: %+v %+v", lines, totals)
	}
}

// TestLinesMinimumAndCredits: the minimum tops up the charges alone, the
// credits apply after it, a credit above the total is carried forward and
// one brought forward opens the next invoice that has lines.
func TestLinesMinimumAndCredits(t *testing.T) {
	charge := func(cents int64) billing.Sum {
		return billing.Sum{Fee: billing.PickPackOrder, Title: "Pick & Pack orders", UnitCost: cents, WarehouseID: "wh", Divisor: 1, Milli: 1_000, Facts: 1}
	}
	credit := func(cents int64) billing.Sum {
		return billing.Sum{Fee: billing.FeeOperator, Title: "Credit", UnitCost: -cents, Divisor: 1, Milli: 1_000, Facts: 1}
	}
	tests := []struct {
		name            string
		sums            []billing.Sum
		minimum, bought int64
		want            billing.Totals
		wantTitles      []string
	}{
		{name: "minimum tops up charges, then the credit", sums: []billing.Sum{charge(4_100), credit(500)}, minimum: 5_000,
			want:       billing.Totals{Total: 4_500, Charges: 5_000},
			wantTitles: []string{"Pick & Pack orders", "Credit", "Monthly minimum"}},
		{name: "credit under the minimum is not cancelled", sums: []billing.Sum{credit(1_000)}, minimum: 5_000,
			want:       billing.Totals{Total: 4_000, Charges: 5_000},
			wantTitles: []string{"Credit", "Monthly minimum"}},
		{name: "credit above the charges is carried forward", sums: []billing.Sum{charge(300), credit(1_000)},
			want:       billing.Totals{Total: 0, Charges: 300, Carried: 700},
			wantTitles: []string{"Pick & Pack orders", "Credit", "Credit carried forward"}},
		{name: "brought forward opens the next invoice", sums: []billing.Sum{charge(1_000)}, bought: 700,
			want:       billing.Totals{Total: 300, Charges: 1_000},
			wantTitles: []string{"Credit brought forward", "Pick & Pack orders"}},
		{name: "brought forward above the charges is carried again", sums: []billing.Sum{charge(500)}, bought: 700,
			want:       billing.Totals{Total: 0, Charges: 500, Carried: 200},
			wantTitles: []string{"Credit brought forward", "Pick & Pack orders", "Credit carried forward"}},
		{name: "brought forward waits for an invoice with lines", bought: 700, want: billing.Totals{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines, got, err := billing.Lines(tt.sums, tt.minimum, tt.bought, "November 2026")
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("totals = %+v, want %+v", got, tt.want)
			}
			var titles []string
			var sum int64
			for _, l := range lines {
				titles = append(titles, l.Title)
				sum += l.Total
			}
			if !slices.Equal(titles, tt.wantTitles) {
				t.Errorf("titles = %q, want %q", titles, tt.wantTitles)
			}
			if sum != got.Total {
				t.Errorf("lines sum to %d, total %d", sum, got.Total)
			}
		})
	}
}

func TestCalendarAcrossZones(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	cal := billing.NewCalendar(ny)
	// 23:59 local on October 31 is November 1 in UTC, but October here.
	late := time.Date(2026, 11, 1, 3, 59, 0, 0, time.UTC)
	if got := cal.MonthName(late); got != "October 2026" {
		t.Errorf("MonthName(%v) = %s, want October 2026", late, got)
	}
	if got, want := cal.NextMonthStart(late), time.Date(2026, 11, 1, 4, 0, 0, 0, time.UTC); !got.Equal(want) {
		t.Errorf("NextMonthStart = %v, want %v", got, want)
	}
	oct31 := billing.Date{Year: 2026, Month: time.October, Day: 31}
	p := billing.Period{Start: cal.MonthStart(late), End: cal.NextMonthStart(late)}
	if !p.Holds(cal.LastInstant(oct31)) || p.Holds(cal.Start(oct31.AddDays(1))) {
		t.Errorf("the storage of October 31 must belong to October")
	}
	if got := billing.DaysInMonth(billing.Date{Year: 2028, Month: time.February, Day: 3}); got != 29 {
		t.Errorf("DaysInMonth(Feb 2028) = %d", got)
	}
	// November 1 2026 has 25 hours in New York (DST ends): days are local days.
	if d := cal.Start(billing.Date{Year: 2026, Month: time.November, Day: 2}).Sub(cal.Start(billing.Date{Year: 2026, Month: time.November, Day: 1})); d != 25*time.Hour {
		t.Errorf("November 1 lasts %v", d)
	}
	early := billing.Period{Start: cal.MonthStart(late), End: time.Date(2026, 10, 15, 18, 0, 0, 0, time.UTC)}
	if got := cal.Name(early); got != "October 1–15, 2026" {
		t.Errorf("Name = %s", got)
	}
	if !p.Due(p.End.Add(24*time.Hour), 24*time.Hour) || p.Due(p.End.Add(24*time.Hour-time.Nanosecond), 24*time.Hour) {
		t.Errorf("Due at grace")
	}
}

func TestKeys(t *testing.T) {
	if got := billing.FormatKey(2026, 123); got != "INV-2026-000123" {
		t.Errorf("FormatKey = %s", got)
	}
	for key, want := range map[string]int{"INV-2026-000123": 123, "INV-2026-00012": -1, "inv-2026-000123": -1, "INV-2026-+00123": -1, "INV-2026x000123": -1} {
		y, n, ok := billing.ParseKey(key)
		if (want < 0) == ok || (ok && (y != 2026 || n != want)) {
			t.Errorf("ParseKey(%q) = %d %d %v", key, y, n, ok)
		}
	}
}

func TestMove(t *testing.T) {
	allowed := map[[2]invoicing.InvoiceStatus]bool{
		{invoicing.InvoiceUnpaid, invoicing.InvoicePendingPayment}: true, {invoicing.InvoiceUnpaid, invoicing.InvoicePaid}: true,
		{invoicing.InvoiceUnpaid, invoicing.InvoiceCollecting}: true, {invoicing.InvoiceUnpaid, invoicing.InvoiceCancelled}: true,
		{invoicing.InvoicePendingPayment, invoicing.InvoicePaid}: true, {invoicing.InvoicePendingPayment, invoicing.InvoiceUnpaid}: true,
		{invoicing.InvoiceCollecting, invoicing.InvoicePaid}: true, {invoicing.InvoiceCollecting, invoicing.InvoiceCancelled}: true,
		{invoicing.InvoicePaid, invoicing.InvoiceRefunded}: true,
	}
	all := invoicing.InvoiceStatuses
	for _, from := range all {
		for _, to := range all {
			err := billing.Move(from, to)
			if allowed[[2]invoicing.InvoiceStatus{from, to}] != (err == nil) {
				t.Errorf("Move(%s, %s) = %v", from, to, err)
			}
			if err != nil && !errors.Is(err, domain.ErrInvalidState) {
				t.Errorf("Move(%s, %s) = %v, want ErrInvalidState", from, to, err)
			}
		}
	}
}

func TestNewRateCard(t *testing.T) {
	valid := func() billing.RateCardParams {
		return billing.RateCardParams{OrganizationID: "org_acme", EffectiveFrom: "2026-11-01",
			Fees:     map[string]int64{"pick_pack_order": 250, "minimum_monthly": 5000},
			Services: map[string]billing.Service{"kitting": {Title: "Kitting", UnitCost: 75}}}
	}
	c, err := billing.NewRateCard(valid())
	if err != nil || c.Fee(billing.PickPackOrder) != 250 || c.Fee(billing.SPDCarton) != 0 || c.EffectiveFrom().String() != "2026-11-01" {
		t.Fatalf("NewRateCard = %+v, %v", c, err)
	}
	if s, ok := c.Service("kitting"); !ok || s.UnitCost != 75 {
		t.Errorf("Service(kitting) = %+v %v", s, ok)
	}
	domaintest.Edits(t, valid, billing.NewRateCard, []domaintest.Edit[billing.RateCardParams]{
		{Name: "bad date", Edit: func(p *billing.RateCardParams) { p.EffectiveFrom = "2026-02-30" }, WantField: "effectiveFrom"},
		{Name: "unknown fee", Edit: func(p *billing.RateCardParams) { p.Fees["pallet"] = 1 }, WantField: "fees"},
		{Name: "negative fee", Edit: func(p *billing.RateCardParams) { p.Fees["spd_carton"] = -1 }, WantField: "fees.spd_carton"},
		{Name: "service without title", Edit: func(p *billing.RateCardParams) { p.Services["x"] = billing.Service{UnitCost: 1} }, WantField: "services.x.title"},
		{Name: "bad organization", Edit: func(p *billing.RateCardParams) { p.OrganizationID = "" }, WantField: "organizationId"},
	})
}

// Two cards are equal when their organization, first day, prices (a fee
// left out being 0) and services are.
func TestRateCardEqual(t *testing.T) {
	params := func(edit func(p *billing.RateCardParams)) *billing.RateCard {
		t.Helper()
		return domaintest.Made(t, func() billing.RateCardParams {
			return billing.RateCardParams{OrganizationID: "org_acme", EffectiveFrom: "2026-11-01",
				Fees:     map[string]int64{"pick_pack_order": 250},
				Services: map[string]billing.Service{"kitting": {Title: "Kitting", UnitCost: 75}}}
		}, billing.NewRateCard, edit)
	}
	card := params(func(*billing.RateCardParams) {})
	if !card.Equal(params(func(p *billing.RateCardParams) { p.Fees["spd_carton"] = 0 })) {
		t.Error("a fee given as 0 differs from one left out")
	}
	for name, edit := range map[string]func(p *billing.RateCardParams){
		"organization": func(p *billing.RateCardParams) { p.OrganizationID = "org_other" },
		"first day":    func(p *billing.RateCardParams) { p.EffectiveFrom = "2026-11-02" },
		"price":        func(p *billing.RateCardParams) { p.Fees["pick_pack_order"] = 251 },
		"service": func(p *billing.RateCardParams) {
			p.Services["kitting"] = billing.Service{Title: "Kitting", UnitCost: 76}
		},
		"no service": func(p *billing.RateCardParams) { p.Services = nil },
	} {
		if card.Equal(params(edit)) {
			t.Errorf("cards differing by %s are equal", name)
		}
	}
}

func TestDollars(t *testing.T) {
	for cents, want := range map[int64]string{0: "$0.00", 5000: "$50.00", 123456789: "$1,234,567.89", -100: "-$1.00"} {
		if got := billing.Dollars(cents); got != want {
			t.Errorf("Dollars(%d) = %s, want %s", cents, got, want)
		}
	}
}
