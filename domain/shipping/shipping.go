package shipping

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/acme3pl/fulfillment/domain"
)

// Tracking is the carrier's reference of a shipped shipment: who carries it
// and the number its parcels are tracked by.
type Tracking struct {
	Carrier string
	Number  string
}

// MaxTrackingChars bounds the carrier and the tracking number, in
// characters.
const MaxTrackingChars = 64

// NewTracking validates a tracking as the warehouse reports it. Surrounding
// white space is trimmed (a WMS pads fixed-width fields); what remains must
// be 1 … MaxTrackingChars characters without control characters, each.
// Both compare exactly as trimmed: a tracking number's letters are part of
// it, and a carrier's name is the WMS's own. Errors name the body's members,
// carrier and trackingNumber.
func NewTracking(carrier, number string) (Tracking, error) {
	t := Tracking{Carrier: strings.TrimSpace(carrier), Number: strings.TrimSpace(number)}
	for _, f := range []struct{ name, value string }{{"carrier", t.Carrier}, {"trackingNumber", t.Number}} {
		if n := utf8.RuneCountInString(f.value); n < 1 || n > MaxTrackingChars {
			return Tracking{}, domain.Invalid(f.name, "must be 1 to %d characters, surrounding white space trimmed", MaxTrackingChars)
		}
		if !utf8.ValidString(f.value) || strings.ContainsFunc(f.value, isControl) {
			return Tracking{}, domain.Invalid(f.name, "must be text without control characters")
		}
	}
	return t, nil
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

// Ship moves a pending shipment to shipped, at now, with its tracking: the
// warehouse has handed it to the carrier. Consuming the reserved stock is
// the caller's transaction's business; the aggregate guards the transition.
//
// Shipping a shipment shipped with the same tracking again changes nothing
// and reports a replay (the warehouse's retry); with another tracking, or
// shipping a draft or a cancelled shipment, is ErrInvalidState.
func (s *Shipment) Ship(now time.Time, t Tracking) (replay bool, err error) {
	t, err = NewTracking(t.Carrier, t.Number)
	if err != nil {
		return false, err
	}
	switch {
	case s.status == ShipmentShipped && s.tracking != nil && *s.tracking == t:
		return true, nil
	case s.status == ShipmentShipped:
		return false, fmt.Errorf("ship a shipment shipped with another tracking: %w", domain.ErrInvalidState)
	case s.status != ShipmentPending:
		return false, fmt.Errorf("ship a %s shipment: %w", s.status, domain.ErrInvalidState)
	}
	at := now.UTC()
	s.status, s.updatedAt, s.shippedAt, s.tracking = ShipmentShipped, at, &at, &t
	return false, nil
}

// Consumption is what shipping s does to on hand: each line taken off its
// warehouse's on hand and off what it reserved, one movement per line
// (reason shipment, the negative quantity, at ShippedAt). s must be shipped.
func (s *Shipment) Consumption() (StockChange, error) {
	if s.status != ShipmentShipped || s.shippedAt == nil {
		return StockChange{}, fmt.Errorf("consume stock of a %s shipment: %w", s.status, domain.ErrInvalidState)
	}
	deltas := make([]StockDelta, len(s.lines))
	for i, l := range s.lines {
		deltas[i] = StockDelta{Kind: s.kind.Items(), ItemID: l.ItemID, Quantity: -l.Quantity}
	}
	return StockChange{
		OrganizationID: s.organizationID, WarehouseID: s.warehouse.ID, Reason: MovementShipment,
		ShipmentID: s.id, OccurredAt: *s.shippedAt, ConsumesReserved: true, Deltas: deltas,
	}, nil
}

// OnHandShortageError lists the items a change of stock (a ship) would
// take more of than the warehouse holds on hand (Available is the on-hand
// count): on hand would go negative, so nothing was changed. Kind tells
// products from cartons. It is ErrNegativeStock, item by item.
type OnHandShortageError struct {
	Kind  ItemKind
	Items []StockShortage
}

func (e *OnHandShortageError) Error() string {
	return fmt.Sprintf("on hand short for %d %s(s)", len(e.Items), e.Kind)
}

// Is makes the shortage ErrNegativeStock (errors.Is).
func (e *OnHandShortageError) Is(target error) bool { return target == ErrNegativeStock }

// ErrorKind implements domain.KindedError.
func (e *OnHandShortageError) ErrorKind() domain.Kind { return domain.KindOnHandShort }
