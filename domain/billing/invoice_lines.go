package billing

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/invoicing"
)

// FormatKey is the invoice key of the n-th invoice finalized in year:
// INV-YYYY-NNNNNN.
func FormatKey(year, n int) string { return fmt.Sprintf("INV-%04d-%06d", year, n) }

// ParseKey reads a key of FormatKey's shape; ok is false for any other key
// (a fixture's invoices may carry keys of their own).
func ParseKey(key string) (year, n int, ok bool) {
	if len(key) != len("INV-2026-000001") || !strings.HasPrefix(key, "INV-") || key[8] != '-' {
		return 0, 0, false
	}
	y, err1 := strconv.Atoi(key[4:8])
	n, err2 := strconv.Atoi(key[9:])
	if err1 != nil || err2 != nil || y < 0 || n < 0 || strings.ContainsAny(key[4:], "+ ") {
		return 0, 0, false
	}
	return y, n, true
}

// transitions are the statuses an operator may move a finalized invoice to.
var transitions = map[invoicing.InvoiceStatus][]invoicing.InvoiceStatus{
	invoicing.InvoiceUnpaid:         {invoicing.InvoicePendingPayment, invoicing.InvoicePaid, invoicing.InvoiceCollecting, invoicing.InvoiceCancelled},
	invoicing.InvoicePendingPayment: {invoicing.InvoicePaid, invoicing.InvoiceUnpaid},
	invoicing.InvoiceCollecting:     {invoicing.InvoicePaid, invoicing.InvoiceCancelled},
	invoicing.InvoicePaid:           {invoicing.InvoiceRefunded},
}

// CanMove reports whether an operator may move an invoice from one status
// to another.
func CanMove(from, to invoicing.InvoiceStatus) bool {
	for _, s := range transitions[from] {
		if s == to {
			return true
		}
	}
	return false
}

// Move refuses a transition CanMove does not allow with
// domain.ErrInvalidState.
func Move(from, to invoicing.InvoiceStatus) error {
	if CanMove(from, to) {
		return nil
	}
	return fmt.Errorf("%w: an invoice cannot go from %s to %s", domain.ErrInvalidState, from, to)
}

// TermsNote is the note of a finalized invoice naming its payment terms.
func TermsNote(terms time.Duration, due time.Time) string {
	when := due.UTC().Format(time.DateOnly)
	if terms%(24*time.Hour) == 0 {
		return fmt.Sprintf("Payment terms: net %d days (due %s).", int64(terms/(24*time.Hour)), when)
	}
	return fmt.Sprintf("Payment terms: due within %s (due %s).", terms, due.UTC().Format(time.RFC3339))
}

// Sum is what the charges of one invoice line add up to.
type Sum struct {
	Fee         Fee    // the kind of fact, which names what Facts counts
	Title       string // the line's title
	UnitCost    int64
	WarehouseID string // "" for an operator's charge
	Divisor     int64  // 1, or the days of the month for storage
	Milli       int64  // Σ quantity in thousandths (storage: unit-days × 1000)
	Facts       int64  // how many facts (shipments, receipts, days, services, charges)
	Description string // an operator's charge's own description
	ForPeriod   string // an operator's charge dated into a closed period: the month it was for
}

// Line is one line of an invoice.
type Line struct {
	Fee         Fee // what the line bills: FeeMinimum and FeeCreditForward are made by Lines itself
	Title       string
	Description string
	Milli       int64
	UnitCost    int64
	Total       int64
}

// count names n facts of the fee's line (FeeLines).
func count(n int64, fee Fee) string {
	w := FeeLines[fee]
	if n == 1 {
		return "1 " + w.Noun
	}
	return fmt.Sprintf("%d %s", n, w.NounPl)
}

// feeOrder orders lines: the card's fees first, then services, operator's
// charges, and the minimum last.
func feeOrder(f Fee) int {
	for i, g := range Fees {
		if g == f {
			return i
		}
	}
	switch f {
	case FeeService:
		return len(Fees)
	case FeeOperator:
		return len(Fees) + 1
	}
	return len(Fees) + 2
}

// Totals are what an invoice's lines add up to, as Lines makes them.
type Totals struct {
	Total   int64 // the invoice's total: never below 0
	Charges int64 // the lines with a positive unit cost: what the minimum tops up
	// Carried is the credit the invoice carries forward to the
	// organization's next invoice: what its credits exceed its charges by.
	Carried int64
	// Cut reports that a line was cut to keep the invoice within
	// InvoiceCeiling (docs/billing.md, "Bounds"): no input the bounds
	// accept comes near it.
	Cut bool
}

// Lines turns the sums of a period's charges into its invoice lines, in a
// stable order (fee, warehouse, title, unit cost, description), and applies
// the period's rules once (docs/billing.md, "Lines and the arithmetic"):
//   - the monthly minimum tops up the charges (the lines with a positive
//     unit cost) to minimum, whatever the credits;
//   - a credit brought forward from an earlier invoice opens the invoice,
//     when it has any line to bring it to;
//   - credits then apply to the total; what they exceed it by is carried
//     forward by a last line that brings the total to 0.
//
// Lines that come to a zero quantity or a zero unit cost are left out: a
// fee the card leaves at 0 is not billed. A period with no line gets no
// line from a brought-forward credit either: the credit waits for the next.
func Lines(sums []Sum, minimum, broughtForward int64, periodName string) ([]Line, Totals, error) {
	sums = append([]Sum(nil), sums...)
	sort.Slice(sums, func(i, j int) bool {
		a, b := sums[i], sums[j]
		if feeOrder(a.Fee) != feeOrder(b.Fee) {
			return feeOrder(a.Fee) < feeOrder(b.Fee)
		}
		if a.WarehouseID != b.WarehouseID {
			return a.WarehouseID < b.WarehouseID
		}
		if a.Title != b.Title {
			return a.Title < b.Title
		}
		if a.UnitCost != b.UnitCost {
			return a.UnitCost < b.UnitCost
		}
		if a.ForPeriod != b.ForPeriod {
			return a.ForPeriod < b.ForPeriod
		}
		return a.Description < b.Description
	})
	var lines []Line
	var t Totals
	// Charges and credits stay within InvoiceCeiling each (the credit
	// brought forward counted with the credits), so that no sum below can
	// overflow: a line that would pass it is cut to what fits.
	brought := max(broughtForward, 0)
	if brought > InvoiceCeiling {
		brought, t.Cut = InvoiceCeiling, true
	}
	credits := brought
	for _, s := range sums {
		milli := LineQuantity(s.Milli, s.Divisor)
		if milli <= 0 || s.UnitCost == 0 {
			continue
		}
		room := InvoiceCeiling - t.Charges
		if s.UnitCost < 0 {
			room = InvoiceCeiling - credits
		}
		cut := false
		if fit := fitMilli(milli, s.UnitCost, room); fit < milli {
			milli, t.Cut, cut = fit, true, true
			if milli == 0 {
				continue
			}
		}
		lt, err := LineTotal(milli, s.UnitCost)
		if err != nil {
			return nil, Totals{}, fmt.Errorf("line %q: %w", s.Title, err)
		}
		if lt > 0 {
			t.Charges += lt // within InvoiceCeiling: the line was cut to fit
		} else {
			credits -= lt
		}
		desc := lineDescription(s)
		if cut {
			desc += " (cut to the invoice's ceiling)"
		}
		lines = append(lines, Line{Fee: s.Fee, Title: s.Title, Description: desc, Milli: milli, UnitCost: s.UnitCost, Total: lt})
	}
	t.Total = t.Charges - (credits - brought) // both within InvoiceCeiling
	minimum = min(minimum, MaxCents)          // a card's fee: never more (NewRateCard)
	if top := MinimumTopUp(minimum, t.Charges); top > 0 {
		lines = append(lines, Line{Fee: FeeMinimum, Title: FeeMinimum.Title(), Milli: domain.QuantityScale, UnitCost: top, Total: top,
			Description: fmt.Sprintf("minimum %s for %s", Dollars(minimum), periodName)})
		t.Total += top // top ≤ minimum ≤ MaxCents
		t.Charges = minimum
	}
	if brought > 0 && len(lines) > 0 {
		lines = append([]Line{{Fee: FeeCreditForward, Title: TitleCreditBroughtForward, Milli: domain.QuantityScale,
			UnitCost: -brought, Total: -brought, Description: "credit from an earlier invoice"}}, lines...)
		t.Total -= brought // the credits, brought included, are within InvoiceCeiling
	}
	if t.Total < 0 {
		t.Carried = -t.Total
		lines = append(lines, Line{Fee: FeeCreditForward, Title: TitleCreditCarriedForward, Milli: domain.QuantityScale,
			UnitCost: t.Carried, Total: t.Carried, Description: "credit to the next invoice"})
		t.Total = 0
	}
	return lines, t, nil
}

// lineDescription names the warehouse and the count of facts of a line
// (an operator's charge keeps its own description), and the month a late
// fact was for.
func lineDescription(s Sum) string {
	desc := s.Description
	switch {
	case s.Fee != FeeOperator:
		desc = s.WarehouseID + ": " + count(s.Facts, s.Fee)
	case desc == "":
		desc = count(s.Facts, s.Fee)
	}
	if s.ForPeriod != "" {
		desc += " (for " + s.ForPeriod + ")"
	}
	return desc
}

// Dollars formats cents as $1,234.56 (a credit as -$1.00).
func Dollars(cents int64) string {
	sign := ""
	u := uint64(cents)
	if cents < 0 {
		sign, u = "-", uint64(-(cents+1))+1
	}
	whole := strconv.FormatUint(u/100, 10)
	for i := len(whole) - 3; i > 0; i -= 3 {
		whole = whole[:i] + "," + whole[i:]
	}
	return fmt.Sprintf("%s$%s.%02d", sign, whole, u%100)
}
