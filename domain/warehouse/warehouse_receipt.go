package warehouse

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/shipping"
)

// The refusals of the warehouse's reports (receipts and services).
var (
	// ErrReferenceConflict: the warehouse has already reported another
	// receipt or service under this reference.
	ErrReferenceConflict = domain.NewError(domain.KindReferenceConflict, "reference conflict")
	// ErrPeriodClosed: the fact is dated inside a billing period of the
	// organization that is closed.
	ErrPeriodClosed = domain.NewError(domain.KindPeriodClosed, "period closed")
	// ErrUnknownService: the service code is not one of the organization's
	// rate card in force when the service was performed.
	ErrUnknownService = domain.NewError(domain.KindUnknownService, "unknown service")
)

// MaxReferenceChars bounds a warehouse's reference (an ASN or dock receipt
// number, a service ticket), in characters.
const MaxReferenceChars = 64

// MaxReceiptLines bounds the lines of one receipt.
const MaxReceiptLines = 1000

// ReceiptLine is one item received: a product or a carton of the
// organization, by ID, and how many. SKU is known once the receipt is
// resolved against the organization's records.
type ReceiptLine struct {
	Kind     shipping.ItemKind
	ItemID   string
	SKU      string
	Quantity int64
}

// Receipt is goods received at a warehouse for an organization (an ASN or
// dock receipt), reported by the warehouse under its reference, which is
// the idempotency key per warehouse. Its lines raise on hand at the
// warehouse, each by one stock movement dated ReceivedAt.
type Receipt struct {
	report
	lines []ReceiptLine
}

// ReceiptReport is a receipt as the warehouse reports it, the input of
// NewReceipt. ReceivedAt nil means now.
type ReceiptReport struct {
	WarehouseID    string
	OrganizationID string
	Reference      string
	ReceivedAt     *time.Time
	Lines          []ReceiptLine
}

// NewReceipt validates r and returns the receipt id, made now. It checks,
// in the order of the body's members: organizationId, reference (1–64
// characters), the time (not in the future), items (at least one, at most
// MaxReceiptLines, each naming exactly one product or carton, each quantity
// 1 … MaxLineQuantity).
// Lines of the same item are merged into one with the summed quantity, in
// order of first appearance, the sum held to the same bound: a receipt
// tells how many of each item arrived, however the WMS split its lines.
// Times are kept to the millisecond, the API's precision. Errors name the
// member of the body (`reference`, `items[2].quantity`, …).
func NewReceipt(id string, now time.Time, r ReceiptReport) (*Receipt, error) {
	if err := checkReport("receipt", id, r.WarehouseID, r.OrganizationID, r.Reference); err != nil {
		return nil, err
	}
	now = now.UTC().Truncate(time.Millisecond)
	at, given, err := reportedAt("receivedAt", r.ReceivedAt, now)
	if err != nil {
		return nil, err
	}
	lines, err := checkReceiptLines(r.Lines)
	if err != nil {
		return nil, err
	}
	return &Receipt{report: report{
		id: id, warehouseID: r.WarehouseID, organizationID: r.OrganizationID, reference: r.Reference,
		at: at, atGiven: given, createdAt: now,
	}, lines: lines}, nil
}

func checkReceiptLines(in []ReceiptLine) ([]ReceiptLine, error) {
	if len(in) == 0 || len(in) > MaxReceiptLines {
		return nil, domain.Invalid("items", "must hold 1 to %d items", MaxReceiptLines)
	}
	merged := make([]ReceiptLine, 0, len(in))
	index := make(map[string]int, len(in))
	for i, l := range in {
		at := fmt.Sprintf("items[%d]", i)
		if (l.Kind != shipping.KindProduct && l.Kind != shipping.KindCarton) || l.ItemID == "" {
			return nil, domain.Invalid(at, "must name exactly one of productId, cartonId")
		}
		if err := shipping.CheckLineQuantity(at+".quantity", l.Quantity); err != nil {
			return nil, err
		}
		if err := shipping.CheckText(at+"."+string(l.Kind)+"Id", l.ItemID); err != nil {
			return nil, err
		}
		key := string(l.Kind) + "\x00" + l.ItemID
		j, ok := index[key]
		if !ok {
			index[key] = len(merged)
			merged = append(merged, ReceiptLine{Kind: l.Kind, ItemID: l.ItemID, Quantity: l.Quantity})
			continue
		}
		if l.Quantity > shipping.MaxLineQuantity-merged[j].Quantity { // written so that it cannot overflow
			return nil, domain.Invalid(at+".quantity", "the quantities of %s %q add up to more than %d", l.Kind, l.ItemID, shipping.MaxLineQuantity)
		}
		merged[j].Quantity += l.Quantity
	}
	return merged, nil
}

// Resolve names a new receipt's items from the organization's records:
// products and cartons found by the IDs of its lines. Lines whose item is
// not among them — unknown, another organization's, of the other kind, an
// ID of a shape no record has — are refused with an *UnknownItemsError
// listing them de-duplicated in line order (its Kind empty when both kinds
// are listed);
// nothing changes then.
func (r *Receipt) Resolve(products, cartons map[string]shipping.InventoryItem) error {
	var unknown []string
	kinds := map[shipping.ItemKind]bool{}
	skus := make([]string, len(r.lines))
	for i, l := range r.lines {
		items := products
		if l.Kind == shipping.KindCarton {
			items = cartons
		}
		it, ok := items[l.ItemID]
		if !ok || it.OrganizationID != r.organizationID {
			if !slices.Contains(unknown, l.ItemID) { // one ID named as a product and as a carton
				unknown = append(unknown, l.ItemID)
			}
			kinds[l.Kind] = true
			continue
		}
		skus[i] = it.SKU
	}
	if len(unknown) > 0 {
		e := &shipping.UnknownItemsError{IDs: unknown}
		if len(kinds) == 1 {
			for k := range kinds {
				e.Kind = k
			}
		}
		return e
	}
	for i := range r.lines {
		r.lines[i].SKU = skus[i]
	}
	return nil
}

// SameContent tells whether other reports the same goods as r: the same
// organization, the same items and quantities in any order, and, when r's
// time was given, the same time. It decides whether a receipt reported
// again under a known reference is a retry (answered with the first one)
// or a conflict.
func (r *Receipt) SameContent(other *Receipt) bool {
	if r.organizationID != other.organizationID || len(r.lines) != len(other.lines) {
		return false
	}
	return r.sameTime(&other.report) &&
		slices.Equal(sortedReceiptLines(r.lines), sortedReceiptLines(other.lines))
}

func sortedReceiptLines(lines []ReceiptLine) []ReceiptLine {
	out := make([]ReceiptLine, len(lines))
	for i, l := range lines {
		out[i] = ReceiptLine{Kind: l.Kind, ItemID: l.ItemID, Quantity: l.Quantity}
	}
	slices.SortFunc(out, func(a, b ReceiptLine) int {
		if c := strings.Compare(string(a.Kind), string(b.Kind)); c != 0 {
			return c
		}
		return strings.Compare(a.ItemID, b.ItemID)
	})
	return out
}

// Movements are the stock movements of the receipt: each line raises on
// hand at the receipt's warehouse, dated when the goods were received.
func (r *Receipt) Movements() shipping.StockChange {
	deltas := make([]shipping.StockDelta, len(r.lines))
	for i, l := range r.lines {
		deltas[i] = shipping.StockDelta{Kind: l.Kind, ItemID: l.ItemID, Quantity: l.Quantity}
	}
	return shipping.StockChange{
		OrganizationID: r.organizationID, WarehouseID: r.warehouseID, Reason: shipping.MovementReceipt,
		ReceiptID: r.id, OccurredAt: r.at, Deltas: deltas,
	}
}

// Units sums the receipt's quantities of one kind of item.
func (r *Receipt) Units(kind shipping.ItemKind) int64 {
	var n int64
	for _, l := range r.lines {
		if l.Kind == kind {
			n += l.Quantity
		}
	}
	return n
}

// RehydrateReceiptParams are a stored receipt's fields.
type RehydrateReceiptParams struct {
	ID, WarehouseID, OrganizationID, Reference string
	ReceivedAt                                 time.Time
	ReceivedAtGiven                            bool
	Lines                                      []ReceiptLine
	CreatedAt                                  time.Time
}

// RehydrateReceipt rebuilds a stored receipt without validation: only the
// postgres adapter calls it; the database's constraints hold the
// invariants.
func RehydrateReceipt(p RehydrateReceiptParams) *Receipt {
	return &Receipt{report: report{
		id: p.ID, warehouseID: p.WarehouseID, organizationID: p.OrganizationID, reference: p.Reference,
		at: p.ReceivedAt.UTC(), atGiven: p.ReceivedAtGiven, createdAt: p.CreatedAt.UTC(),
	}, lines: p.Lines}
}

// Accessors.
func (r *Receipt) ReceivedAt() time.Time { return r.at }
func (r *Receipt) ReceivedAtGiven() bool { return r.atGiven }
func (r *Receipt) Lines() []ReceiptLine  { return append([]ReceiptLine(nil), r.lines...) }
