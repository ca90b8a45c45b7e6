package domain

import (
	"fmt"
	"strings"
	"time"
)

// ShipmentKind is Pick & Pack (products picked one by one) or SPD (whole
// cartons shipped as they are).
type ShipmentKind string

// The two kinds of shipment draft.
const (
	PickPack ShipmentKind = "pick_pack"
	SPD      ShipmentKind = "spd"
)

// ShipmentStatus is a state of the shipment state machine:
// draft → pending, draft|pending → cancelled.
type ShipmentStatus string

// Shipment statuses.
const (
	ShipmentDraft     ShipmentStatus = "draft"
	ShipmentPending   ShipmentStatus = "pending"
	ShipmentCancelled ShipmentStatus = "cancelled"
)

// Items is the kind of inventory record the shipment's lines name:
// products for Pick & Pack, cartons for SPD.
func (k ShipmentKind) Items() ItemKind {
	if k == SPD {
		return KindCarton
	}
	return KindProduct
}

// ParseShipmentStatus accepts the three statuses.
func ParseShipmentStatus(s string) (ShipmentStatus, error) {
	switch st := ShipmentStatus(s); st {
	case ShipmentDraft, ShipmentPending, ShipmentCancelled:
		return st, nil
	}
	return "", Invalid("status", "%q is not a shipment status", s)
}

// ShippingAddress is the destination of a shipment.
type ShippingAddress struct {
	Name, Company, Address1, Address2, City, State, Zip, Country, Phone string
}

// ShipmentLine is one product (Pick & Pack) or carton (SPD) of a shipment.
type ShipmentLine struct {
	ItemID   string // product ID or carton ID
	SKU      string
	Quantity int64
}

// ShipmentSource tells where a shipment came from; nil for API-made drafts.
type ShipmentSource struct {
	Type        string // "storefront"
	OrderID     int64
	OrderNumber int64
}

// Shipment is the shipment aggregate.
type Shipment struct {
	id             string
	organizationID string
	kind           ShipmentKind
	status         ShipmentStatus
	warehouse      WarehouseRef
	address        ShippingAddress
	notes          string
	lines          []ShipmentLine
	source         *ShipmentSource
	test           bool
	createdAt      time.Time
	updatedAt      time.Time
	submittedAt    *time.Time
}

// NewShipmentParams are the inputs of a new draft.
type NewShipmentParams struct {
	ID             string
	OrganizationID string
	Kind           ShipmentKind
	Warehouse      WarehouseRef
	Address        ShippingAddress
	Notes          string
	Lines          []ShipmentLine
	Source         *ShipmentSource
	Test           bool
	Now            time.Time
}

// MaxShipmentLines bounds the lines of one shipment.
const MaxShipmentLines = 1000

// MaxLineQuantity bounds every quantity of a shipment line, as asked and as
// summed per item: far above any real shipment, and far enough below int64
// that no stock counter (a sum of such lines over every pending shipment)
// can overflow.
const MaxLineQuantity = 1_000_000_000

// CheckLineQuantity refuses a quantity outside 1 … MaxLineQuantity, naming
// field in the error.
func CheckLineQuantity(field string, q int64) error {
	if q < 1 || q > MaxLineQuantity {
		return Invalid(field, "must be an integer from 1 to %d", MaxLineQuantity)
	}
	return nil
}

// MergeLines merges lines with the same key into one line with the summed
// quantity, in order of first appearance, and refuses a sum above
// MaxLineQuantity (field names the member in the error). The storefront
// intake merges by SKU, NewShipment by item: both paths meet this bound.
func MergeLines(lines []ShipmentLine, key func(ShipmentLine) string, field string) ([]ShipmentLine, error) {
	merged := make([]ShipmentLine, 0, len(lines))
	index := make(map[string]int, len(lines))
	for _, l := range lines {
		k := key(l)
		j, ok := index[k]
		if !ok {
			index[k] = len(merged)
			merged = append(merged, l)
			continue
		}
		if l.Quantity > MaxLineQuantity-merged[j].Quantity { // written so that it cannot overflow
			return nil, Invalid(field, "the quantities of %q add up to more than %d", k, MaxLineQuantity)
		}
		merged[j].Quantity += l.Quantity
	}
	return merged, nil
}

// MaxNotesBytes bounds a shipment's notes.
const MaxNotesBytes = 5000

// NewShipment validates p and returns a draft. Lines with the same item are
// merged into one with the summed quantity, in order of first appearance.
func NewShipment(p NewShipmentParams) (*Shipment, error) {
	if !ValidID(p.ID) || !ValidID(p.OrganizationID) {
		return nil, Invalid("shipment", "id and organization are required")
	}
	if p.Kind != PickPack && p.Kind != SPD {
		return nil, Invalid("kind", "%q is not a shipment kind", p.Kind)
	}
	if !ValidID(p.Warehouse.ID) {
		return nil, Invalid("warehouseId", "is required")
	}
	field := "items"
	if p.Kind == SPD {
		field = "cartons"
	}
	if len(p.Lines) == 0 {
		return nil, Invalid(field, "must hold at least one line")
	}
	if len(p.Lines) > MaxShipmentLines {
		return nil, Invalid(field, "must hold at most %d lines", MaxShipmentLines)
	}
	for i, l := range p.Lines {
		if !ValidID(l.ItemID) {
			return nil, Invalid(fmt.Sprintf("%s[%d]", field, i), "item ID %q is not valid", l.ItemID)
		}
		if err := CheckLineQuantity(fmt.Sprintf("%s[%d].quantity", field, i), l.Quantity); err != nil {
			return nil, err
		}
	}
	merged, err := MergeLines(p.Lines, func(l ShipmentLine) string { return l.ItemID }, field)
	if err != nil {
		return nil, err
	}
	if len(p.Notes) > MaxNotesBytes {
		return nil, Invalid("notes", "must be at most %d bytes", MaxNotesBytes)
	}
	now := p.Now.UTC()
	return &Shipment{
		id: p.ID, organizationID: p.OrganizationID, kind: p.Kind, status: ShipmentDraft,
		warehouse: p.Warehouse, address: p.Address, notes: strings.Clone(p.Notes), lines: merged,
		source: p.Source, test: p.Test, createdAt: now, updatedAt: now,
	}, nil
}

// Submit moves a draft to pending. Stock reservation is the caller's
// transaction's business; the aggregate only guards the transition.
func (s *Shipment) Submit(now time.Time) error {
	if s.status != ShipmentDraft {
		return fmt.Errorf("submit a %s shipment: %w", s.status, ErrInvalidState)
	}
	t := now.UTC()
	s.status, s.updatedAt, s.submittedAt = ShipmentPending, t, &t
	return nil
}

// Cancel moves a draft or pending shipment to cancelled. It reports whether
// the shipment held a reservation (was pending) that must be released.
func (s *Shipment) Cancel(now time.Time) (releases bool, err error) {
	if s.status != ShipmentDraft && s.status != ShipmentPending {
		return false, fmt.Errorf("cancel a %s shipment: %w", s.status, ErrInvalidState)
	}
	releases = s.status == ShipmentPending
	s.status, s.updatedAt = ShipmentCancelled, now.UTC()
	return releases, nil
}

// RehydrateShipmentParams carry a stored shipment.
type RehydrateShipmentParams struct {
	NewShipmentParams
	Status      ShipmentStatus
	CreatedAt   time.Time
	UpdatedAt   time.Time
	SubmittedAt *time.Time
}

// RehydrateShipment rebuilds a shipment from storage. Only the postgres
// adapter calls it; the database's constraints hold the invariants.
func RehydrateShipment(p RehydrateShipmentParams) *Shipment {
	return &Shipment{
		id: p.ID, organizationID: p.OrganizationID, kind: p.Kind, status: p.Status,
		warehouse: p.Warehouse, address: p.Address, notes: p.Notes, lines: p.Lines,
		source: p.Source, test: p.Test, createdAt: p.CreatedAt.UTC(), updatedAt: p.UpdatedAt.UTC(),
		submittedAt: utcPtr(p.SubmittedAt),
	}
}

// Accessors.
func (s *Shipment) ID() string               { return s.id }
func (s *Shipment) OrganizationID() string   { return s.organizationID }
func (s *Shipment) Kind() ShipmentKind       { return s.kind }
func (s *Shipment) Status() ShipmentStatus   { return s.status }
func (s *Shipment) Warehouse() WarehouseRef  { return s.warehouse }
func (s *Shipment) Address() ShippingAddress { return s.address }
func (s *Shipment) Notes() string            { return s.notes }
func (s *Shipment) Lines() []ShipmentLine    { return append([]ShipmentLine(nil), s.lines...) }
func (s *Shipment) Source() *ShipmentSource  { return s.source }
func (s *Shipment) Test() bool               { return s.test }
func (s *Shipment) CreatedAt() time.Time     { return s.createdAt }
func (s *Shipment) UpdatedAt() time.Time     { return s.updatedAt }
func (s *Shipment) SubmittedAt() *time.Time  { return s.submittedAt }
