package warehouse

import (
	"fmt"
	"slices"
	"strings"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/shipping"
)

// MaxOnHand bounds on hand of one item at one warehouse: 10^12 units, far
// above any real stock and far enough below int64 that a day's storage
// summed over every item, day and warehouse of a month cannot overflow.
const MaxOnHand int64 = 1_000_000_000_000

// ErrOnHandBound: a receipt (or a fixture's stock row) would take on hand of
// an item at a warehouse past MaxOnHand. It is refused as an invalid
// parameter (422 invalid_parameter), and nothing changes.
var ErrOnHandBound = domain.NewError(domain.KindOnHandBound, "on hand past its bound")

// OnHandOver is an item a change of stock would take past MaxOnHand: what
// it holds and what was to be added.
type OnHandOver struct {
	Kind     shipping.ItemKind
	ItemID   string
	OnHand   int64
	Quantity int64
}

// OnHandBoundError lists the items a change of stock would take past
// MaxOnHand, in kind and item order; it is ErrOnHandBound. Items is empty
// when the database's own bound refused the change (a race the statement's
// check could not see), which does not say which item.
type OnHandBoundError struct {
	Items []OnHandOver
}

func (e *OnHandBoundError) Error() string {
	if len(e.Items) == 0 {
		return fmt.Sprintf("on hand would pass %d", MaxOnHand)
	}
	parts := make([]string, len(e.Items))
	for i, it := range e.Items {
		parts[i] = fmt.Sprintf("%s %s holds %d, +%d", it.Kind, it.ItemID, it.OnHand, it.Quantity)
	}
	return fmt.Sprintf("on hand would pass %d: %s", MaxOnHand, strings.Join(parts, "; "))
}

// Is makes it ErrOnHandBound.
func (e *OnHandBoundError) Is(target error) bool { return target == ErrOnHandBound }

// ErrorKind implements domain.KindedError.
func (e *OnHandBoundError) ErrorKind() domain.Kind { return domain.KindOnHandBound }

// OnHandPast is the refusal of the receipt r reports when its lines would
// take on hand past MaxOnHand (e, from the stock ledger): an invalid
// parameter naming the quantity of the body's first line of the first item
// listed (`items[2].quantity`), or `items` when e lists none; it is also
// ErrOnHandBound, and of its kind (not the *domain.ValidationError's it
// wraps first), which answers it 422.
func (r ReceiptReport) OnHandPast(e *OnHandBoundError) error {
	field, reason := "items", fmt.Sprintf("would take on hand past %d at warehouse %s", MaxOnHand, r.WarehouseID)
	if len(e.Items) > 0 {
		it := e.Items[0]
		if i := slices.IndexFunc(r.Lines, func(l ReceiptLine) bool { return l.Kind == it.Kind && l.ItemID == it.ItemID }); i >= 0 {
			field = fmt.Sprintf("items[%d].quantity", i)
		}
		reason = fmt.Sprintf("would take on hand of %s %q at warehouse %s past %d (it holds %d)",
			it.Kind, it.ItemID, r.WarehouseID, MaxOnHand, it.OnHand)
	}
	return domain.WithKind(domain.KindOnHandBound, fmt.Errorf("%w: %w", domain.Invalid(field, "%s", reason), e))
}
