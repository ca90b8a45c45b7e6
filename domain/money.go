package domain

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"
)

// ErrOverflow: an amount does not fit in int64 cents.
var ErrOverflow = errors.New("amount overflows int64 cents")

// QuantityScale is the number of thousandths in one unit: quantities are
// fixed-point with three decimals, so that fractional quantities (hours,
// pallet-days) are exact integers, never binary fractions.
const QuantityScale = 1000

// Quantity is a non-negative count of units in thousandths.
type Quantity struct{ milli int64 }

// QuantityFromMilli builds a quantity from thousandths of a unit.
func QuantityFromMilli(m int64) (Quantity, error) {
	if m < 0 {
		return Quantity{}, Invalid("quantity", "must not be negative")
	}
	return Quantity{milli: m}, nil
}

// ParseQuantity reads a decimal such as "62", "1.5" or "0.125" (at most
// three decimals, no exponent, not negative).
func ParseQuantity(s string) (Quantity, error) {
	intPart, frac, hasFrac := strings.Cut(s, ".")
	if intPart == "" || (hasFrac && (frac == "" || len(frac) > 3)) {
		return Quantity{}, Invalid("quantity", "%q is not a decimal with at most three decimals", s)
	}
	for _, part := range []string{intPart, frac} {
		for _, r := range part {
			if r < '0' || r > '9' {
				return Quantity{}, Invalid("quantity", "%q is not a non-negative decimal", s)
			}
		}
	}
	frac = (frac + "000")[:3]
	f, _ := strconv.ParseInt(frac, 10, 64)
	whole, err := strconv.ParseInt(intPart, 10, 64)
	if err != nil || whole > (math.MaxInt64-f)/QuantityScale { // whole×1000 + f must fit in int64
		return Quantity{}, Invalid("quantity", "%q is too large", s)
	}
	return Quantity{milli: whole*QuantityScale + f}, nil
}

// Milli returns the quantity in thousandths.
func (q Quantity) Milli() int64 { return q.milli }

// String formats the quantity as a JSON-ready decimal without trailing zeros.
func (q Quantity) String() string {
	whole, frac := q.milli/QuantityScale, q.milli%QuantityScale
	if frac == 0 {
		return strconv.FormatInt(whole, 10)
	}
	return strings.TrimRight(fmt.Sprintf("%d.%03d", whole, frac), "0")
}

// LineTotal is quantity × unitCost in cents, rounded half away from zero to
// whole cents, or ErrOverflow when it does not fit in int64.
func LineTotal(q Quantity, unitCost int64) (int64, error) {
	if unitCost < 0 {
		return 0, Invalid("unitCost", "must not be negative")
	}
	hi, lo := bits.Mul64(uint64(q.milli), uint64(unitCost))
	if hi >= QuantityScale { // the quotient would not fit in 64 bits
		return 0, ErrOverflow
	}
	quo, rem := bits.Div64(hi, lo, QuantityScale)
	if quo > math.MaxInt64 { // checked before rounding up, which could wrap quo to 0
		return 0, ErrOverflow
	}
	if rem*2 >= QuantityScale {
		quo++
	}
	if quo > math.MaxInt64 {
		return 0, ErrOverflow
	}
	return int64(quo), nil
}

// AddCents adds two amounts of cents, refusing overflow.
func AddCents(a, b int64) (int64, error) {
	s := a + b
	if (b > 0 && s < a) || (b < 0 && s > a) {
		return 0, ErrOverflow
	}
	return s, nil
}
