package shipping

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/acme3pl/fulfillment/domain"
)

// ShipmentKind is Pick & Pack (products picked one by one) or SPD (whole
// cartons shipped as they are).
type ShipmentKind string

// The two kinds of shipment draft.
const (
	PickPack ShipmentKind = "pick_pack"
	SPD      ShipmentKind = "spd"
)

// ShipmentKinds are the kinds, the one list of them: api/openapi.yaml's
// enums, the shipments table's CHECK and the metrics' kind label are
// compared with it or built from it (api/closed_sets_test.go).
var ShipmentKinds = []ShipmentKind{PickPack, SPD}

// ShipmentStatus is a state of the shipment state machine:
// draft → pending → shipped, draft|pending → cancelled.
type ShipmentStatus string

// Shipment statuses.
const (
	ShipmentDraft     ShipmentStatus = "draft"
	ShipmentPending   ShipmentStatus = "pending"
	ShipmentShipped   ShipmentStatus = "shipped"
	ShipmentCancelled ShipmentStatus = "cancelled"
)

// ShipmentStatuses are the statuses, the one list of them: api/openapi.yaml's
// ShipmentStatus, the shipments table's CHECK and the metrics' status label
// are compared with it or built from it (api/closed_sets_test.go).
var ShipmentStatuses = []ShipmentStatus{ShipmentDraft, ShipmentPending, ShipmentShipped, ShipmentCancelled}

// WarehouseStatuses are the statuses the warehouse sees: every one but
// draft, since a draft never reaches the warehouse. Its list of shipments
// refuses any other, and api/openapi.yaml's enum of that list's status is
// compared with it.
var WarehouseStatuses = []ShipmentStatus{ShipmentPending, ShipmentShipped, ShipmentCancelled}

// SeenByWarehouse tells a status of WarehouseStatuses.
func (s ShipmentStatus) SeenByWarehouse() bool { return slices.Contains(WarehouseStatuses, s) }

// Items is the kind of inventory record the shipment's lines name:
// products for Pick & Pack, cartons for SPD.
func (k ShipmentKind) Items() ItemKind {
	if k == SPD {
		return KindCarton
	}
	return KindProduct
}

// ParseShipmentStatus accepts the statuses of ShipmentStatuses.
func ParseShipmentStatus(s string) (ShipmentStatus, error) {
	if st := ShipmentStatus(s); slices.Contains(ShipmentStatuses, st) {
		return st, nil
	}
	return "", domain.Invalid("status", "%q is not a shipment status", s)
}

// CheckText refuses a NUL character in text a shipment keeps (PostgreSQL
// text cannot hold one), naming field.
func CheckText(field, value string) error {
	if strings.ContainsRune(value, 0) {
		return domain.Invalid(field, "must not contain NUL characters")
	}
	return nil
}

// Address is the destination of a shipment.
type Address struct {
	Name, Company, Address1, Address2, City, State, Zip, Country, Phone string
}

// MaxShippingFieldChars bounds each field of an address entered through the
// API, in characters (its country has two).
const MaxShippingFieldChars = 255

// apiCountryCode is a country as a draft may give it: two ASCII letters of
// either case, stored upper-case.
var apiCountryCode = regexp.MustCompile(`^[A-Za-z]{2}$`)

// checked returns the address as a shipment keeps it, or the first field
// that is refused, named as a draft's body names it. No field may hold a NUL
// character (PostgreSQL text cannot). An address entered through the API
// (entered) is held to the API's bounds as well — each field at most
// MaxShippingFieldChars characters, the country two letters, stored
// upper-case; a storefront's address is kept as the storefront sent it (it
// has checked it, and refusing an order over a field's length would lose
// the order).
func (a Address) checked(entered bool) (Address, error) {
	fields := []struct{ name, value string }{
		{"shippingName", a.Name}, {"shippingCompany", a.Company}, {"shippingAddress1", a.Address1},
		{"shippingAddress2", a.Address2}, {"shippingCity", a.City}, {"shippingState", a.State},
		{"shippingZip", a.Zip}, {"shippingCountry", a.Country}, {"shippingPhone", a.Phone},
	}
	for _, f := range fields {
		if err := CheckText(f.name, f.value); err != nil {
			return Address{}, err
		}
		if limit := fieldChars(f.name); entered && utf8.RuneCountInString(f.value) > limit {
			return Address{}, domain.Invalid(f.name, "must be at most %d characters", limit)
		}
	}
	if !entered {
		return a, nil
	}
	if a.Country != "" && !apiCountryCode.MatchString(a.Country) {
		return Address{}, domain.Invalid("shippingCountry", "must be a two-letter ISO 3166-1 alpha-2 code")
	}
	a.Country = strings.ToUpper(a.Country)
	return a, nil
}

func fieldChars(name string) int {
	if name == "shippingCountry" {
		return 2
	}
	return MaxShippingFieldChars
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
	warehouse      domain.WarehouseRef
	address        Address
	notes          string
	lines          []ShipmentLine
	source         *ShipmentSource
	test           bool
	createdAt      time.Time
	updatedAt      time.Time
	submittedAt    *time.Time
	shippedAt      *time.Time
	tracking       *Tracking
}

// NewShipmentParams are the inputs of a new draft.
type NewShipmentParams struct {
	ID             string
	OrganizationID string
	Kind           ShipmentKind
	Warehouse      domain.WarehouseRef
	Address        Address
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
		return domain.Invalid(field, "must be an integer from 1 to %d", MaxLineQuantity)
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
			return nil, domain.Invalid(field, "the quantities of %q add up to more than %d", k, MaxLineQuantity)
		}
		merged[j].Quantity += l.Quantity
	}
	return merged, nil
}

// MaxNotesBytes bounds a shipment's notes.
const MaxNotesBytes = 5000

// NewShipment validates p and returns a draft. It checks, in this order,
// what a draft's body holds: the warehouse, the shipping address (see
// Address.checked: a draft without a source was entered through the
// API), the notes, the lines — at least one and at most MaxShipmentLines,
// each naming its item, each quantity within 1 … MaxLineQuantity. Lines with
// the same item are merged into one with the summed quantity, in order of
// first appearance, and the sum is held to the same bound. Errors name the
// member of a draft's body (`warehouseId`, `shippingCountry`,
// `items[3].quantity`, `cartons[0].cartonId`, …).
//
// The warehouse and item IDs are only required here: whether they name the
// organization's records is for Resolve to say (an ID of a shape no record
// has names none). The order intake gives records it has found already.
func NewShipment(p NewShipmentParams) (*Shipment, error) {
	if !domain.ValidID(p.ID) || !domain.ValidID(p.OrganizationID) {
		return nil, domain.Invalid("shipment", "id and organization are required")
	}
	if p.Kind != PickPack && p.Kind != SPD {
		return nil, domain.Invalid("kind", "%q is not a shipment kind", p.Kind)
	}
	if p.Warehouse.ID == "" {
		return nil, domain.Invalid("warehouseId", "is required")
	}
	address, err := p.Address.checked(p.Source == nil)
	if err != nil {
		return nil, err
	}
	if err := CheckText("notes", p.Notes); err != nil {
		return nil, err
	}
	if len(p.Notes) > MaxNotesBytes {
		return nil, domain.Invalid("notes", "must be at most %d bytes", MaxNotesBytes)
	}
	lines, err := checkLines(p.Kind, p.Lines)
	if err != nil {
		return nil, err
	}
	now := p.Now.UTC()
	return &Shipment{
		id: p.ID, organizationID: p.OrganizationID, kind: p.Kind, status: ShipmentDraft,
		warehouse: p.Warehouse, address: address, notes: strings.Clone(p.Notes), lines: lines,
		source: p.Source, test: p.Test, createdAt: now, updatedAt: now,
	}, nil
}

// checkLines checks the lines of a draft of kind and merges those of one
// item.
func checkLines(kind ShipmentKind, lines []ShipmentLine) ([]ShipmentLine, error) {
	member, idMember := "items", "productId"
	if kind == SPD {
		member, idMember = "cartons", "cartonId"
	}
	if len(lines) == 0 {
		return nil, domain.Invalid(member, "must hold at least one line")
	}
	if len(lines) > MaxShipmentLines {
		return nil, domain.Invalid(member, "must hold at most %d lines", MaxShipmentLines)
	}
	for i, l := range lines {
		at := fmt.Sprintf("%s[%d]", member, i)
		if l.ItemID == "" {
			return nil, domain.Invalid(at+"."+idMember, "is required")
		}
		if err := CheckLineQuantity(at+".quantity", l.Quantity); err != nil {
			return nil, err
		}
	}
	return MergeLines(lines, func(l ShipmentLine) string { return l.ItemID }, member)
}

// Resolve names a new draft's warehouse and items from the organization's
// records: warehouse is the warehouse the draft names, items the
// organization's products (Pick & Pack) or cartons (SPD) found by the IDs of
// its lines. Lines whose item is not among them — unknown, another
// organization's, of the other kind, or an ID of a shape no record has —
// are refused with an *UnknownItemsError listing them in line order;
// nothing changes then.
func (s *Shipment) Resolve(warehouse domain.WarehouseRef, items map[string]InventoryItem) error {
	if s.status != ShipmentDraft || warehouse.ID != s.warehouse.ID {
		return fmt.Errorf("resolve the records of shipment %s: not a new draft of warehouse %s", s.id, warehouse.ID)
	}
	lines := s.Lines()
	var unknown []string
	for i, l := range lines {
		item, ok := items[l.ItemID]
		if !ok || item.OrganizationID != s.organizationID || item.Kind != s.kind.Items() {
			unknown = append(unknown, l.ItemID)
			continue
		}
		lines[i].SKU = item.SKU
	}
	if len(unknown) > 0 {
		return &UnknownItemsError{Kind: s.kind.Items(), IDs: unknown}
	}
	s.warehouse, s.lines = warehouse, lines
	return nil
}

// Submit moves a draft to pending. Stock reservation is the caller's
// transaction's business; the aggregate only guards the transition.
func (s *Shipment) Submit(now time.Time) error {
	if s.status != ShipmentDraft {
		return fmt.Errorf("submit a %s shipment: %w", s.status, domain.ErrInvalidState)
	}
	t := now.UTC()
	s.status, s.updatedAt, s.submittedAt = ShipmentPending, t, &t
	return nil
}

// Cancel moves a draft or pending shipment to cancelled (a shipped one has
// left the warehouse: ErrInvalidState). It reports whether
// the shipment held a reservation (was pending) that must be released.
func (s *Shipment) Cancel(now time.Time) (releases bool, err error) {
	if s.status != ShipmentDraft && s.status != ShipmentPending {
		return false, fmt.Errorf("cancel a %s shipment: %w", s.status, domain.ErrInvalidState)
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
	ShippedAt   *time.Time
	Tracking    *Tracking // with ShippedAt, when shipped
}

// RehydrateShipment rebuilds a shipment from storage. Only the postgres
// adapter calls it; the database's constraints hold the invariants.
func RehydrateShipment(p RehydrateShipmentParams) *Shipment {
	return &Shipment{
		id: p.ID, organizationID: p.OrganizationID, kind: p.Kind, status: p.Status,
		warehouse: p.Warehouse, address: p.Address, notes: p.Notes, lines: p.Lines,
		source: p.Source, test: p.Test, createdAt: p.CreatedAt.UTC(), updatedAt: p.UpdatedAt.UTC(),
		submittedAt: domain.UTCPtr(p.SubmittedAt), shippedAt: domain.UTCPtr(p.ShippedAt), tracking: p.Tracking,
	}
}

// Accessors.
func (s *Shipment) ID() string                     { return s.id }
func (s *Shipment) OrganizationID() string         { return s.organizationID }
func (s *Shipment) Kind() ShipmentKind             { return s.kind }
func (s *Shipment) Status() ShipmentStatus         { return s.status }
func (s *Shipment) Warehouse() domain.WarehouseRef { return s.warehouse }
func (s *Shipment) Address() Address               { return s.address }
func (s *Shipment) Notes() string                  { return s.notes }
func (s *Shipment) Lines() []ShipmentLine          { return append([]ShipmentLine(nil), s.lines...) }
func (s *Shipment) Source() *ShipmentSource        { return s.source }
func (s *Shipment) Test() bool                     { return s.test }
func (s *Shipment) CreatedAt() time.Time           { return s.createdAt }
func (s *Shipment) UpdatedAt() time.Time           { return s.updatedAt }
func (s *Shipment) SubmittedAt() *time.Time        { return s.submittedAt }
func (s *Shipment) ShippedAt() *time.Time          { return s.shippedAt }
func (s *Shipment) Tracking() *Tracking            { return s.tracking }
