package shipping_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/domaintest"
	"github.com/acme3pl/fulfillment/domain/shipping"
)

func TestNewTracking(t *testing.T) {
	tests := []struct {
		name            string
		carrier, number string
		want            shipping.Tracking
		wantField       string // "" when valid
	}{
		{"plain", "UPS", "1Z999AA10123456784", shipping.Tracking{Carrier: "UPS", Number: "1Z999AA10123456784"}, ""},
		{"trimmed", " DHL\t", "  00340434161234567890 \n", shipping.Tracking{Carrier: "DHL", Number: "00340434161234567890"}, ""},
		{"at the bound, in characters", strings.Repeat("é", 64), strings.Repeat("9", 64),
			shipping.Tracking{Carrier: strings.Repeat("é", 64), Number: strings.Repeat("9", 64)}, ""},
		{"no carrier", "", "1Z", shipping.Tracking{}, "carrier"},
		{"blank carrier", "   ", "1Z", shipping.Tracking{}, "carrier"},
		{"carrier too long", strings.Repeat("c", 65), "1Z", shipping.Tracking{}, "carrier"},
		{"no number", "UPS", "", shipping.Tracking{}, "trackingNumber"},
		{"number too long", "UPS", strings.Repeat("1", 65), shipping.Tracking{}, "trackingNumber"},
		{"number with NUL", "UPS", "1Z\x00", shipping.Tracking{}, "trackingNumber"},
		{"carrier with a line break inside", "U\nPS", "1Z", shipping.Tracking{}, "carrier"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := shipping.NewTracking(tt.carrier, tt.number)
			domaintest.MatchField(t, err, tt.wantField)
			if got != tt.want {
				t.Fatalf("NewTracking = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestShipTransitions(t *testing.T) {
	later := shipNow.Add(time.Hour)
	same := shipping.Tracking{Carrier: "UPS", Number: "1Z999AA10123456784"} // shipStored's
	tests := []struct {
		name       string
		from       shipping.ShipmentStatus
		tracking   shipping.Tracking
		want       shipping.ShipmentStatus
		wantReplay bool
		wantErr    error
	}{
		{"pending is shipped", shipping.ShipmentPending, shipping.Tracking{Carrier: "DHL", Number: "42"}, shipping.ShipmentShipped, false, nil},
		{"the same ship again is a replay", shipping.ShipmentShipped, same, shipping.ShipmentShipped, true, nil},
		{"the same ship, padded, is a replay", shipping.ShipmentShipped, shipping.Tracking{Carrier: " UPS ", Number: "1Z999AA10123456784 "},
			shipping.ShipmentShipped, true, nil},
		{"another number", shipping.ShipmentShipped, shipping.Tracking{Carrier: "UPS", Number: "1Z999AA10123456785"},
			shipping.ShipmentShipped, false, domain.ErrInvalidState},
		{"another carrier", shipping.ShipmentShipped, shipping.Tracking{Carrier: "ups", Number: same.Number},
			shipping.ShipmentShipped, false, domain.ErrInvalidState},
		{"a draft", shipping.ShipmentDraft, same, shipping.ShipmentDraft, false, domain.ErrInvalidState},
		{"a cancelled shipment", shipping.ShipmentCancelled, same, shipping.ShipmentCancelled, false, domain.ErrInvalidState},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := shipStored(tt.from)
			beforeShipped, beforeTracking := s.ShippedAt(), s.Tracking()
			replay, err := s.Ship(later, tt.tracking)
			domaintest.MatchErr(t, err, tt.wantErr)
			if replay != tt.wantReplay || s.Status() != tt.want {
				t.Fatalf("replay %v, status %s; want %v, %s", replay, s.Status(), tt.wantReplay, tt.want)
			}
			if tt.wantErr != nil || tt.wantReplay {
				if s.ShippedAt() != beforeShipped || s.Tracking() != beforeTracking || !s.UpdatedAt().Equal(shipNow) {
					t.Fatal("a refused or replayed Ship changed the shipment")
				}
				return
			}
			if s.ShippedAt() == nil || !s.ShippedAt().Equal(later) || !s.UpdatedAt().Equal(later) || *s.Tracking() != tt.tracking {
				t.Fatalf("shippedAt %v updatedAt %v tracking %+v", s.ShippedAt(), s.UpdatedAt(), s.Tracking())
			}
		})
	}
}

func TestShipRefusesABadTrackingBeforeItsState(t *testing.T) {
	for _, st := range []shipping.ShipmentStatus{shipping.ShipmentPending, shipping.ShipmentShipped, shipping.ShipmentCancelled} {
		s := shipStored(st)
		var ve *domain.ValidationError
		if _, err := s.Ship(shipNow, shipping.Tracking{Carrier: "UPS"}); !errors.As(err, &ve) || ve.Field != "trackingNumber" {
			t.Errorf("%s: Ship without a number: %v, want an invalid trackingNumber", st, err)
		}
		if s.Status() != st {
			t.Errorf("%s: status %s after a refused Ship", st, s.Status())
		}
	}
}

func TestConsumptionTakesEachLineOffWhatWasReserved(t *testing.T) {
	if _, err := shipStored(shipping.ShipmentPending).Consumption(); !errors.Is(err, domain.ErrInvalidState) {
		t.Fatalf("consumption of a pending shipment: %v, want ErrInvalidState", err)
	}
	s := shipStored(shipping.ShipmentShipped)
	c, err := s.Consumption()
	if err != nil {
		t.Fatal(err)
	}
	if c.Reason != shipping.MovementShipment || c.ShipmentID != s.ID() || c.ReceiptID != "" || !c.ConsumesReserved ||
		c.OrganizationID != s.OrganizationID() || c.WarehouseID != s.Warehouse().ID || !c.OccurredAt.Equal(*s.ShippedAt()) ||
		len(c.Deltas) != len(s.Lines()) || len(c.Deltas) == 0 {
		t.Fatalf("consumption %+v of %+v", c, s)
	}
	for i, l := range s.Lines() {
		if d := c.Deltas[i]; d != (shipping.StockDelta{Kind: s.Kind().Items(), ItemID: l.ItemID, Quantity: -l.Quantity}) {
			t.Fatalf("delta %d: %+v, want line %+v taken off", i, d, l)
		}
	}
}

func TestOnHandShortageIsNegativeStock(t *testing.T) {
	var err error = &shipping.OnHandShortageError{Kind: shipping.KindCarton}
	if !errors.Is(err, shipping.ErrNegativeStock) || errors.Is(err, domain.ErrInvalidState) {
		t.Fatal("a shortage is ErrNegativeStock, and nothing else")
	}
}
