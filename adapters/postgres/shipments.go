package postgres

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/ports"
)

type shipmentRow struct {
	bun.BaseModel `bun:"table:shipments,alias:s"`

	ID                string     `bun:"id,pk"`
	OrganizationID    string     `bun:"organization_id"`
	Kind              string     `bun:"kind"`
	Status            string     `bun:"status"`
	WarehouseID       string     `bun:"warehouse_id"`
	WarehouseName     string     `bun:"warehouse_name,scanonly"`
	ShippingName      string     `bun:"shipping_name"`
	ShippingCompany   string     `bun:"shipping_company"`
	ShippingAddress1  string     `bun:"shipping_address1"`
	ShippingAddress2  string     `bun:"shipping_address2"`
	ShippingCity      string     `bun:"shipping_city"`
	ShippingState     string     `bun:"shipping_state"`
	ShippingZip       string     `bun:"shipping_zip"`
	ShippingCountry   string     `bun:"shipping_country"`
	ShippingPhone     string     `bun:"shipping_phone"`
	Notes             string     `bun:"notes"`
	SourceType        *string    `bun:"source_type"`
	SourceOrderID     *int64     `bun:"source_order_id"`
	SourceOrderNumber *int64     `bun:"source_order_number"`
	Test              bool       `bun:"test"`
	CreatedAt         time.Time  `bun:"created_at"`
	UpdatedAt         time.Time  `bun:"updated_at"`
	SubmittedAt       *time.Time `bun:"submitted_at"`
}

// shipmentLineRow maps shipment_items (products) and shipment_cartons alike;
// ItemID is product_id or carton_id.
type shipmentLineRow struct {
	OrganizationID string `bun:"organization_id"`
	ShipmentID     string `bun:"shipment_id"`
	ItemID         string `bun:"item_id"`
	Position       int    `bun:"position"`
	Quantity       int64  `bun:"quantity"`
	SKU            string `bun:"sku,scanonly"`
}

func lineTable(kind domain.ShipmentKind) (table, column string) {
	if kind == domain.SPD {
		return "shipment_cartons", "carton_id"
	}
	return "shipment_items", "product_id"
}

// ShipmentRepository implements ports.ShipmentRepository.
type ShipmentRepository struct {
	db  bun.IDB
	hot runner
}

var _ ports.ShipmentRepository = (*ShipmentRepository)(nil)

// createShipmentQuery inserts a shipment and its lines in one statement, one
// round trip: the shipment row in a CTE, its lines in the main insert from
// two array parameters (foreign keys are checked at the statement's end,
// when both are there). Line positions are the arrays' order, from 0.
func createShipmentQuery(lineTable, itemColumn string) hotQuery {
	return hotQuery{operation: "INSERT", sql: `WITH new_shipment AS (
	INSERT INTO shipments (id, organization_id, kind, status, warehouse_id, shipping_name, shipping_company,
		shipping_address1, shipping_address2, shipping_city, shipping_state, shipping_zip, shipping_country,
		shipping_phone, notes, source_type, source_order_id, source_order_number, test, created_at, updated_at,
		submitted_at)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22)
)
INSERT INTO ` + lineTable + ` (organization_id, shipment_id, ` + itemColumn + `, position, quantity)
SELECT $2, $1, v.item_id, (v.position - 1)::int, v.quantity
FROM unnest($23::text[], $24::bigint[]) WITH ORDINALITY AS v(item_id, quantity, position)`}
}

var (
	createPickPackQuery = createShipmentQuery("shipment_items", "product_id")
	createSPDQuery      = createShipmentQuery("shipment_cartons", "carton_id")
)

// Create inserts the shipment and its lines.
func (r *ShipmentRepository) Create(ctx context.Context, s *domain.Shipment) error {
	row := shipmentToRow(s)
	lines := s.Lines()
	ids := make([]string, len(lines))
	qty := make([]int64, len(lines))
	for i, l := range lines {
		ids[i], qty[i] = l.ItemID, l.Quantity
	}
	q := &createPickPackQuery
	if s.Kind() == domain.SPD {
		q = &createSPDQuery
	}
	_, err := r.hot.exec(ctx, q,
		row.ID, row.OrganizationID, row.Kind, row.Status, row.WarehouseID, row.ShippingName, row.ShippingCompany,
		row.ShippingAddress1, row.ShippingAddress2, row.ShippingCity, row.ShippingState, row.ShippingZip,
		row.ShippingCountry, row.ShippingPhone, row.Notes, row.SourceType, row.SourceOrderID, row.SourceOrderNumber,
		row.Test, row.CreatedAt, row.UpdatedAt, row.SubmittedAt, pgTextArray(ids), pgInt64Array(qty))
	return dbErr(err)
}

// Update loads the shipment FOR UPDATE (its row stays locked until the
// transaction ends), runs change on it and writes its new state.
func (r *ShipmentRepository) Update(ctx context.Context, organizationID, id string, change func(*domain.Shipment) error) (*domain.Shipment, error) {
	s, err := r.get(ctx, organizationID, id, true)
	if err != nil {
		return nil, err
	}
	if err := change(s); err != nil {
		return nil, err
	}
	res, err := r.db.NewUpdate().Table("shipments").
		Set("status = ?", string(s.Status())).
		Set("updated_at = ?", s.UpdatedAt()).
		Set("submitted_at = ?", s.SubmittedAt()).
		Where("organization_id = ? AND id = ?", s.OrganizationID(), s.ID()).Exec(ctx)
	if err != nil {
		return nil, dbErr(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil, domain.ErrNotFound
	}
	return s, nil
}

// Get returns the organization's shipment with its warehouse name and lines.
func (r *ShipmentRepository) Get(ctx context.Context, organizationID, id string) (*domain.Shipment, error) {
	return r.get(ctx, organizationID, id, false)
}

// List returns a page of the organization's shipments, newest first, with
// their lines: two round trips at most (the page, then its lines per kind).
// It reads one row more than the page to tell whether more follow.
func (r *ShipmentRepository) List(ctx context.Context, organizationID string, filter ports.ShipmentFilter, page ports.Page) ([]*domain.Shipment, bool, error) {
	var rows []shipmentRow
	q := r.selectShipments(&rows).Where("s.organization_id = ?", organizationID)
	if filter.Status != "" {
		q = q.Where("s.status = ?", string(filter.Status))
	}
	err := q.OrderExpr("s.created_at DESC, s.id DESC").Offset(page.Skip).Limit(page.Take + 1).Scan(ctx)
	if err != nil {
		return nil, false, dbErr(err)
	}
	rows, more := trimPage(rows, page)
	if len(rows) == 0 {
		return []*domain.Shipment{}, false, nil
	}
	out, err := r.withLines(ctx, rows)
	if err != nil {
		return nil, false, err
	}
	return out, more, nil
}

func (r *ShipmentRepository) get(ctx context.Context, organizationID, id string, lock bool) (*domain.Shipment, error) {
	if !domain.ValidID(id) {
		// Not an ID the service could have made: no such shipment.
		return nil, domain.ErrNotFound
	}
	var rows []shipmentRow
	q := r.selectShipments(&rows).Where("s.organization_id = ? AND s.id = ?", organizationID, id)
	if lock {
		q = q.For("UPDATE OF s")
	}
	if err := q.Scan(ctx); err != nil {
		return nil, dbErr(err)
	}
	if len(rows) == 0 {
		return nil, domain.ErrNotFound
	}
	out, err := r.withLines(ctx, rows)
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

func (r *ShipmentRepository) selectShipments(rows *[]shipmentRow) *bun.SelectQuery {
	return r.db.NewSelect().Model(rows).
		ColumnExpr("s.*").ColumnExpr("w.name AS warehouse_name").
		Join("JOIN warehouses AS w ON w.id = s.warehouse_id")
}

// withLines loads the lines of many shipments: one query per kind present.
func (r *ShipmentRepository) withLines(ctx context.Context, rows []shipmentRow) ([]*domain.Shipment, error) {
	byKind := map[domain.ShipmentKind][]string{}
	for _, row := range rows {
		k := domain.ShipmentKind(row.Kind)
		byKind[k] = append(byKind[k], row.ID)
	}
	lines := make(map[string][]domain.ShipmentLine, len(rows))
	for kind, ids := range byKind {
		table, column := lineTable(kind)
		itemTable := inventoryTable(kind.Items())
		var lrows []shipmentLineRow
		err := r.db.NewSelect().Model(&lrows).ModelTableExpr("? AS l", bun.Ident(table)).
			ColumnExpr("l.organization_id, l.shipment_id, l.position, l.quantity").
			ColumnExpr("l.? AS item_id", bun.Ident(column)).
			ColumnExpr("p.sku").
			Join("JOIN ? AS p ON p.id = l.?", bun.Ident(itemTable), bun.Ident(column)).
			Where("l.shipment_id IN (?)", bun.List(ids)).
			OrderExpr("l.shipment_id, l.position").Scan(ctx)
		if err != nil {
			return nil, dbErr(err)
		}
		for _, l := range lrows {
			lines[l.ShipmentID] = append(lines[l.ShipmentID], domain.ShipmentLine{ItemID: l.ItemID, SKU: l.SKU, Quantity: l.Quantity})
		}
	}
	out := make([]*domain.Shipment, len(rows))
	for i, row := range rows {
		out[i] = shipmentFromRow(row, lines[row.ID])
	}
	return out, nil
}

func shipmentToRow(s *domain.Shipment) shipmentRow {
	a := s.Address()
	row := shipmentRow{
		ID: s.ID(), OrganizationID: s.OrganizationID(), Kind: string(s.Kind()), Status: string(s.Status()),
		WarehouseID: s.Warehouse().ID, ShippingName: a.Name, ShippingCompany: a.Company,
		ShippingAddress1: a.Address1, ShippingAddress2: a.Address2, ShippingCity: a.City, ShippingState: a.State,
		ShippingZip: a.Zip, ShippingCountry: a.Country, ShippingPhone: a.Phone, Notes: s.Notes(), Test: s.Test(),
		CreatedAt: s.CreatedAt(), UpdatedAt: s.UpdatedAt(), SubmittedAt: s.SubmittedAt(),
	}
	if src := s.Source(); src != nil {
		t, id, num := src.Type, src.OrderID, src.OrderNumber
		row.SourceType, row.SourceOrderID, row.SourceOrderNumber = &t, &id, &num
	}
	return row
}

func shipmentFromRow(row shipmentRow, lines []domain.ShipmentLine) *domain.Shipment {
	p := domain.RehydrateShipmentParams{
		NewShipmentParams: domain.NewShipmentParams{
			ID: row.ID, OrganizationID: row.OrganizationID, Kind: domain.ShipmentKind(row.Kind),
			Warehouse: domain.WarehouseRef{ID: row.WarehouseID, Name: row.WarehouseName},
			Address: domain.ShippingAddress{
				Name: row.ShippingName, Company: row.ShippingCompany, Address1: row.ShippingAddress1,
				Address2: row.ShippingAddress2, City: row.ShippingCity, State: row.ShippingState,
				Zip: row.ShippingZip, Country: row.ShippingCountry, Phone: row.ShippingPhone,
			},
			Notes: row.Notes, Lines: lines, Test: row.Test,
		},
		Status: domain.ShipmentStatus(row.Status), CreatedAt: row.CreatedAt, UpdatedAt: row.UpdatedAt,
		SubmittedAt: row.SubmittedAt,
	}
	if row.SourceType != nil && row.SourceOrderID != nil {
		src := &domain.ShipmentSource{Type: *row.SourceType, OrderID: *row.SourceOrderID}
		if row.SourceOrderNumber != nil {
			src.OrderNumber = *row.SourceOrderNumber
		}
		p.Source = src
	}
	return domain.RehydrateShipment(p)
}
