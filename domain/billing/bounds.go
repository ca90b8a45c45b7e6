package billing

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"

	"github.com/acme3pl/fulfillment/domain"
)

// The bounds of billing (docs/billing.md, "Bounds"): what an operator's
// charge may take its line and its period to, and the ceilings that keep an
// invoice's arithmetic inside int64 cents whatever was accepted before.

// MaxPeriodCents bounds an operator's charge: one that would take its line,
// or its period's charges, credits or total, past ±MaxPeriodCents
// (10^15 cents, ten trillion dollars) is refused.
const MaxPeriodCents int64 = 1_000_000_000_000_000

// InvoiceCeiling is the most an invoice's charges (its lines with a
// positive unit cost) add up to, and the most its credits (the lines with a
// negative one, the credit brought forward included) do: 3 × 10^18 cents,
// so that charges, credits, the minimum and what is carried forward all fit
// in int64 (9.2 × 10^18) together. No input the bounds accept reaches it
// (docs/billing.md, "Bounds"); a line that would take an invoice past it
// is cut to what fits, so that a period can always be previewed and
// finalized.
const InvoiceCeiling int64 = 3_000_000_000_000_000_000

// MinChargeDate is the earliest day an operator's charge may be dated:
// a date before it is a typing mistake, never a charge to move decades.
var MinChargeDate = Date{Year: 2000, Month: 1, Day: 1}

// ErrPastBounds: an operator's charge would take its line or its period
// past MaxPeriodCents; nothing is written.
var ErrPastBounds = domain.NewError(domain.KindPastBounds, "past the bounds of a period")

// ErrReferenceConflict: an operator's charge reference is recorded already
// with other content.
var ErrReferenceConflict = domain.NewError(domain.KindReferenceConflict, "reference_conflict")

// CheckOperatorCharge refuses, with ErrPastBounds, the operator's charge
// add (one charge: Milli its quantity, Divisor 1) when it would take its
// line, or the period's charges, credits or total, past ±MaxPeriodCents.
// sums are the period's lines so far (Sums of its window), broughtForward
// the credit the organization carries forward from its last invoice (a
// credit of this period's invoice). The arithmetic is exact whatever the
// sums hold: it never overflows. "Past" is in the charge's direction: a
// credit is never refused because the charges are large, nor a charge
// because the credits are.
func CheckOperatorCharge(sums []Sum, broughtForward int64, add Sum) error {
	if add.UnitCost == 0 || add.Milli <= 0 {
		return nil
	}
	lineMilli := big.NewInt(add.Milli)
	charges, credits := new(big.Int), big.NewInt(-max(broughtForward, 0))
	for _, s := range sums {
		if sameLine(s, add) {
			lineMilli.Add(lineMilli, big.NewInt(s.Milli))
			continue
		}
		lt := lineTotalBig(big.NewInt(LineQuantity(s.Milli, s.Divisor)), s.UnitCost)
		if lt.Sign() > 0 {
			charges.Add(charges, lt)
		} else {
			credits.Add(credits, lt)
		}
	}
	line := lineTotalBig(lineMilli, add.UnitCost)
	bound := big.NewInt(MaxPeriodCents)
	if line.CmpAbs(bound) > 0 {
		return fmt.Errorf("%w: its line %q would come to %s cents, beyond ±%d", ErrPastBounds, add.Title, line, MaxPeriodCents)
	}
	if add.UnitCost > 0 {
		charges.Add(charges, line)
	} else {
		credits.Add(credits, line)
	}
	total := new(big.Int).Add(charges, credits)
	switch {
	case add.UnitCost > 0 && charges.Cmp(bound) > 0:
		return fmt.Errorf("%w: the period's charges would come to %s cents, beyond %d", ErrPastBounds, charges, MaxPeriodCents)
	case add.UnitCost < 0 && credits.CmpAbs(bound) > 0:
		return fmt.Errorf("%w: the period's credits would come to %s cents, beyond -%d", ErrPastBounds, credits, MaxPeriodCents)
	case add.UnitCost > 0 && total.Cmp(bound) > 0, add.UnitCost < 0 && total.Cmp(new(big.Int).Neg(bound)) < 0:
		return fmt.Errorf("%w: the period's total would come to %s cents, beyond ±%d", ErrPastBounds, total, MaxPeriodCents)
	}
	return nil
}

// sameLine reports whether the charge add goes on the line of s: an
// operator's line is one per title, unit cost, description and month.
func sameLine(s, add Sum) bool {
	return s.Fee == add.Fee && s.Title == add.Title && s.UnitCost == add.UnitCost && s.WarehouseID == add.WarehouseID &&
		s.Divisor == add.Divisor && s.Description == add.Description && s.ForPeriod == add.ForPeriod
}

// lineTotalBig is quantity (thousandths) × unit cost, rounded half away
// from zero, exactly.
func lineTotalBig(milli *big.Int, unitCost int64) *big.Int {
	p := new(big.Int).Mul(milli, big.NewInt(unitCost))
	neg := p.Sign() < 0
	p.Abs(p)
	q, r := p.QuoRem(p, big.NewInt(1000), new(big.Int))
	if r.Int64()*2 >= 1000 {
		q.Add(q, big.NewInt(1))
	}
	if neg {
		q.Neg(q)
	}
	return q
}

// fitMilli is the largest quantity (thousandths, at most milli) whose line
// total at |unitCost| cents stays within room cents; unitCost is not 0.
func fitMilli(milli, unitCost, room int64) int64 {
	if room <= 0 {
		return 0
	}
	c := uint64(unitCost)
	if unitCost < 0 {
		c = uint64(-(unitCost + 1)) + 1 // |MinInt64| without overflow
	}
	// q × c ÷ 1000 rounded ≤ room holds for every q ≤ room × 1000 ÷ c: the
	// exact product is at most room, so its rounding is too.
	hi, lo := bits.Mul64(uint64(room), 1000)
	if hi >= c { // the quotient does not fit in 64 bits: any int64 fits
		return milli
	}
	q, _ := bits.Div64(hi, lo, c)
	if q >= math.MaxInt64 || int64(q) >= milli {
		return milli
	}
	return int64(q)
}
