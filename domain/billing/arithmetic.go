package billing

import (
	"math"

	"github.com/acme3pl/fulfillment/domain"
)

// The arithmetic of charges and lines. Quantities are thousandths of a unit
// (domain.Quantity), money int64 cents. Rounding happens once per invoice
// line, half away from zero: a storage line sums its unit-days first and
// divides once; a line's total is its quantity × unit cost rounded once.

// DivRound is n ÷ d rounded half away from zero; d must be positive.
func DivRound(n, d int64) int64 {
	q, r := n/d, n%d
	if r < 0 {
		r = -r
	}
	if r >= d-r { // 2r ≥ d, written so that it cannot overflow
		if n < 0 {
			q--
		} else {
			q++
		}
	}
	return q
}

// LineQuantity is the quantity of a line, in thousandths, from the summed
// quantities of its charges (thousandths) and their divisor: 1 for a count,
// the days of the month for storage (unit-days ÷ days in the month).
func LineQuantity(summedMilli, divisor int64) int64 {
	if divisor <= 1 {
		return summedMilli
	}
	return DivRound(summedMilli, divisor)
}

// LineTotal is quantity (thousandths) × unit cost in cents, rounded half
// away from zero once. A negative unit cost is a credit, rounded as the same
// positive cost and negated.
func LineTotal(quantityMilli, unitCost int64) (int64, error) {
	q, err := domain.QuantityFromMilli(quantityMilli)
	if err != nil {
		return 0, err
	}
	if unitCost == math.MinInt64 {
		return 0, domain.ErrOverflow
	}
	if unitCost < 0 {
		t, err := domain.LineTotal(q, -unitCost)
		return -t, err
	}
	return domain.LineTotal(q, unitCost)
}

// MinimumTopUp is the line a period below its card's monthly minimum gets:
// minimum − the period's other total, or 0 when the period reaches it.
func MinimumTopUp(minimum, total int64) int64 {
	if minimum <= 0 || total >= minimum {
		return 0
	}
	return minimum - total
}
