package shipping

import (
	"context"
	"database/sql"
	"time"

	"github.com/acme3pl/fulfillment/adapters/postgres"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/shipping"
	"github.com/acme3pl/fulfillment/ports"
	shippingports "github.com/acme3pl/fulfillment/ports/shipping"
)

type shipmentRow struct {
	ID                string
	OrganizationID    string
	Kind              string
	Status            string
	WarehouseID       string
	WarehouseName     string
	ShippingName      string
	ShippingCompany   string
	ShippingAddress1  string
	ShippingAddress2  string
	ShippingCity      string
	ShippingState     string
	ShippingZip       string
	ShippingCountry   string
	ShippingPhone     string
	Notes             string
	SourceType        *string
	SourceOrderID     *int64
	SourceOrderNumber *int64
	Test              bool
	CreatedAt         time.Time
	UpdatedAt         time.Time
	SubmittedAt       *time.Time
	ShippedAt         *time.Time
	TrackingCarrier   *string
	TrackingNumber    *string
}

// ShipmentRepository implements shippingports.ShipmentRepository.
type ShipmentRepository struct {
	run postgres.Runner
}

var _ shippingports.ShipmentRepository = (*ShipmentRepository)(nil)

// The statements that write a new shipment share one text each, so that
// every path that makes a shipment — a draft of the API (Create), an order
// of the intake (acceptOrderSQL, order_receipts.go) — runs the same INSERT. They
// number their parameters as shipmentArgs does: $1 the warehouse, $2 and $3
// the lines' items and quantities (the order of their positions), $4 the
// organization, $5 … $24 the shipment's other columns; reserveProductsSQL
// (inventory.go) uses the same first four, so that the intake can run all
// three as CTEs of one statement.
const (
	// insertShipmentSQL inserts the shipment's row.
	insertShipmentSQL = `INSERT INTO shipments (id, organization_id, kind, status, warehouse_id, shipping_name, shipping_company,
		shipping_address1, shipping_address2, shipping_city, shipping_state, shipping_zip, shipping_country,
		shipping_phone, notes, source_type, source_order_id, source_order_number, test, created_at, updated_at,
		submitted_at)
	VALUES ($5, $4, $6, $7, $1, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24)`

	// shipmentLinesSQL are the lines of the shipment $5 of organization $4
	// from the arrays $2 and $3, positions from 0 in the arrays' order.
	shipmentLinesSQL = `
	SELECT $4, $5, v.item_id, (v.position - 1)::int, v.quantity
	FROM unnest($2::text[], $3::bigint[]) WITH ORDINALITY AS v(item_id, quantity, position)`
	insertShipmentItemsSQL   = `INSERT INTO shipment_items (organization_id, shipment_id, product_id, position, quantity)` + shipmentLinesSQL
	insertShipmentCartonsSQL = `INSERT INTO shipment_cartons (organization_id, shipment_id, carton_id, position, quantity)` + shipmentLinesSQL

	// createPickPackSQL and createSPDSQL insert a draft and its lines in
	// one statement, one round trip: the shipment row in a CTE, its lines
	// in the main insert (foreign keys are checked at the statement's end,
	// when both are there).
	createPickPackSQL postgres.SQLInsert = `WITH new_shipment AS (
	` + insertShipmentSQL + `
)
` + insertShipmentItemsSQL
	createSPDSQL postgres.SQLInsert = `WITH new_shipment AS (
	` + insertShipmentSQL + `
)
` + insertShipmentCartonsSQL
)

// Create inserts the shipment and its lines.
func (r *ShipmentRepository) Create(ctx context.Context, s *shipping.Shipment) error {
	q := postgres.Statement(createPickPackSQL)
	if s.Kind() == shipping.SPD {
		q = createSPDSQL
	}
	_, err := r.run.Exec(ctx, q, shipmentArgs(s)...)
	return postgres.DBErr(err)
}

// shipmentArgs are the values of $1 … $24 of the statements that insert a
// shipment with its lines (insertShipmentSQL and the lines' statements,
// reserveProductsSQL): the warehouse, the lines' items and quantities,
// the organization, then the row's other columns in the order
// insertShipmentSQL names them.
func shipmentArgs(s *shipping.Shipment) []any {
	row := shipmentToRow(s)
	lines := s.Lines()
	ids := make([]string, len(lines))
	qty := make([]int64, len(lines))
	for i, l := range lines {
		ids[i], qty[i] = l.ItemID, l.Quantity
	}
	return []any{
		row.WarehouseID, postgres.Array(ids), postgres.Array(qty),
		row.OrganizationID, row.ID, row.Kind, row.Status, row.ShippingName, row.ShippingCompany,
		row.ShippingAddress1, row.ShippingAddress2, row.ShippingCity, row.ShippingState, row.ShippingZip,
		row.ShippingCountry, row.ShippingPhone, row.Notes, row.SourceType, row.SourceOrderID, row.SourceOrderNumber,
		row.Test, row.CreatedAt, row.UpdatedAt, row.SubmittedAt,
	}
}

// updateShipmentSQL stores a shipment's state after any transition (the
// one UPDATE of shipments): its status and times, and its tracking once
// shipped.
const updateShipmentSQL postgres.SQLUpdate = `UPDATE shipments SET status = $1, updated_at = $2, submitted_at = $3, shipped_at = $4,
	tracking_carrier = $5, tracking_number = $6
WHERE organization_id = $7 AND id = $8`

// Update loads the organization's shipment FOR UPDATE (its row stays
// locked until the transaction ends), runs change on it and writes its new
// state.
func (r *ShipmentRepository) Update(ctx context.Context, organizationID, id string, change func(*shipping.Shipment) error) (*shipping.Shipment, error) {
	return r.update(ctx, lockShipmentSQL, organizationID, id, change)
}

// UpdateAtWarehouse is Update with the shipment found at its warehouse.
func (r *ShipmentRepository) UpdateAtWarehouse(ctx context.Context, warehouseID, id string, change func(*shipping.Shipment) error) (*shipping.Shipment, error) {
	return r.update(ctx, lockShipmentAtWarehouseSQL, warehouseID, id, change)
}

// update locks the shipment with lock (lockShipmentSQL or
// lockShipmentAtWarehouseSQL, whose $1 is key), runs change and writes
// the new state, unless change left the shipment as it was.
func (r *ShipmentRepository) update(ctx context.Context, lock postgres.Statement, key, id string, change func(*shipping.Shipment) error) (*shipping.Shipment, error) {
	s, err := r.get(ctx, lock, key, id)
	if err != nil {
		return nil, err
	}
	status, updated := s.Status(), s.UpdatedAt()
	if err := change(s); err != nil {
		return nil, err
	}
	if s.Status() == status && s.UpdatedAt().Equal(updated) {
		return s, nil
	}
	row := shipmentToRow(s)
	n, err := r.run.Exec(ctx, updateShipmentSQL, row.Status, row.UpdatedAt, row.SubmittedAt, row.ShippedAt,
		row.TrackingCarrier, row.TrackingNumber, row.OrganizationID, row.ID)
	if err != nil {
		return nil, postgres.DBErr(err)
	}
	if n == 0 {
		return nil, domain.ErrNotFound
	}
	return s, nil
}

// shipmentColumns are a shipment's columns with its warehouse's name (w),
// in scanShipment's order; selectShipmentsSQL reads them, the statements
// below complete it.
const (
	shipmentColumns = `s.id, s.organization_id, s.kind, s.status, s.warehouse_id, w.name, s.shipping_name,
	s.shipping_company, s.shipping_address1, s.shipping_address2, s.shipping_city, s.shipping_state, s.shipping_zip,
	s.shipping_country, s.shipping_phone, s.notes, s.source_type, s.source_order_id, s.source_order_number, s.test,
	s.created_at, s.updated_at, s.submitted_at, s.shipped_at, s.tracking_carrier, s.tracking_number`
	selectShipmentsSQL postgres.SQLSelect = `SELECT ` + shipmentColumns + `
FROM shipments AS s JOIN warehouses AS w ON w.id = s.warehouse_id`
)

// scanShipment reads one row of shipmentColumns and, when more are given,
// the columns that follow.
func scanShipment(rows *sql.Rows, more ...any) (shipmentRow, error) {
	var r shipmentRow
	err := rows.Scan(append([]any{&r.ID, &r.OrganizationID, &r.Kind, &r.Status, &r.WarehouseID, &r.WarehouseName, &r.ShippingName,
		&r.ShippingCompany, &r.ShippingAddress1, &r.ShippingAddress2, &r.ShippingCity, &r.ShippingState, &r.ShippingZip,
		&r.ShippingCountry, &r.ShippingPhone, &r.Notes, &r.SourceType, &r.SourceOrderID, &r.SourceOrderNumber, &r.Test,
		&r.CreatedAt, &r.UpdatedAt, &r.SubmittedAt, &r.ShippedAt, &r.TrackingCarrier, &r.TrackingNumber}, more...)...)
	return r, err
}

const (
	getShipmentSQL  postgres.SQLSelect = selectShipmentsSQL + ` WHERE s.organization_id = $1 AND s.id = $2`
	lockShipmentSQL postgres.SQLSelect = getShipmentSQL + ` FOR UPDATE OF s`
	// The warehouse's side finds a shipment by the warehouse it is at ($1).
	lockShipmentAtWarehouseSQL postgres.SQLSelect = selectShipmentsSQL + ` WHERE s.warehouse_id = $1 AND s.id = $2 FOR UPDATE OF s`

	// A page of shipments, newest first, one row more than the page ($3)
	// to tell whether more follow; with a status ($4) or without.
	listShipmentsSQL         postgres.SQLSelect = selectShipmentsSQL + ` WHERE s.organization_id = $1 ORDER BY s.created_at DESC, s.id DESC OFFSET $2 LIMIT $3`
	listShipmentsByStatusSQL postgres.SQLSelect = selectShipmentsSQL + ` WHERE s.organization_id = $1 AND s.status = $4 ORDER BY s.created_at DESC, s.id DESC OFFSET $2 LIMIT $3`
)

// Get returns the organization's shipment with its warehouse name and lines.
func (r *ShipmentRepository) Get(ctx context.Context, organizationID, id string) (*shipping.Shipment, error) {
	return r.get(ctx, getShipmentSQL, organizationID, id)
}

// List returns a page of the organization's shipments, newest first, with
// their lines: two round trips at most (the page, then its lines per kind).
func (r *ShipmentRepository) List(ctx context.Context, organizationID string, filter shippingports.ShipmentFilter, page ports.Page) ([]*shipping.Shipment, bool, error) {
	q, args := postgres.Statement(listShipmentsSQL), []any{organizationID, page.Skip, page.Take + 1}
	if filter.Status != "" {
		q, args = listShipmentsByStatusSQL, append(args, string(filter.Status))
	}
	rows, err := r.read(ctx, q, args...)
	if err != nil {
		return nil, false, err
	}
	rows, more := postgres.TrimPage(rows, page)
	if len(rows) == 0 {
		return []*shipping.Shipment{}, false, nil
	}
	out, err := r.withLines(ctx, rows)
	if err != nil {
		return nil, false, err
	}
	return out, more, nil
}

// listAtWarehouseSQL is a page of the submitted shipments in status $2 at
// warehouse $1, oldest submission first, with their organization's name,
// one row more than the page ($4) to tell whether more follow: a range of
// the index shipments_warehouse_queue_idx.
const listAtWarehouseSQL postgres.SQLSelect = `SELECT ` + shipmentColumns + `, o.name
FROM shipments AS s JOIN warehouses AS w ON w.id = s.warehouse_id JOIN organizations AS o ON o.id = s.organization_id
WHERE s.warehouse_id = $1 AND s.status = $2 AND s.submitted_at IS NOT NULL
ORDER BY s.submitted_at, s.id OFFSET $3 LIMIT $4`

// ListAtWarehouse implements shippingports.ShipmentRepository: two round trips at
// most (the page, then its lines per kind).
func (r *ShipmentRepository) ListAtWarehouse(ctx context.Context, warehouseID string, status shipping.ShipmentStatus, page ports.Page) ([]shippingports.WarehouseShipment, bool, error) {
	var (
		rows  []shipmentRow
		names []string
	)
	err := r.run.Query(ctx, listAtWarehouseSQL, func(sr *sql.Rows) error {
		var name string
		row, err := scanShipment(sr, &name)
		rows, names = append(rows, row), append(names, name)
		return err
	}, warehouseID, string(status), page.Skip, page.Take+1)
	if err != nil {
		return nil, false, postgres.DBErr(err)
	}
	rows, more := postgres.TrimPage(rows, page)
	out := make([]shippingports.WarehouseShipment, len(rows))
	if len(rows) == 0 {
		return out, false, nil
	}
	ss, err := r.withLines(ctx, rows)
	if err != nil {
		return nil, false, err
	}
	for i, s := range ss {
		out[i] = shippingports.WarehouseShipment{Shipment: s, OrganizationName: names[i]}
	}
	return out, more, nil
}

// get reads one shipment with q (getShipmentSQL, lockShipmentSQL: $1 the
// organization; lockShipmentAtWarehouseSQL: $1 the warehouse).
func (r *ShipmentRepository) get(ctx context.Context, q postgres.Statement, key, id string) (*shipping.Shipment, error) {
	rows, err := r.read(ctx, q, key, id)
	if err != nil {
		return nil, err
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

func (r *ShipmentRepository) read(ctx context.Context, q postgres.Statement, args ...any) ([]shipmentRow, error) {
	var rows []shipmentRow
	err := r.run.Query(ctx, q, func(sr *sql.Rows) error {
		row, err := scanShipment(sr)
		rows = append(rows, row)
		return err
	}, args...)
	return rows, postgres.DBErr(err)
}

// The lines of many shipments ($1 their IDs) with their SKUs, in position
// order: a pick and pack shipment's products, an SPD shipment's cartons.
// Each SKU is one probe of the item's primary key: under the generic plan
// the sessions keep, a join guessed the array at thousands of lines and
// hashed every product of the database for the three of a shipment.
const (
	shipmentProductsSQL postgres.SQLSelect = `SELECT l.shipment_id, l.product_id, (SELECT p.sku FROM products AS p WHERE p.id = l.product_id), l.quantity
FROM shipment_items AS l
WHERE l.shipment_id = ANY($1::text[]) ORDER BY l.shipment_id, l.position`
	shipmentCartonsSQL postgres.SQLSelect = `SELECT l.shipment_id, l.carton_id, (SELECT c.sku FROM cartons AS c WHERE c.id = l.carton_id), l.quantity
FROM shipment_cartons AS l
WHERE l.shipment_id = ANY($1::text[]) ORDER BY l.shipment_id, l.position`
)

// withLines loads the lines of many shipments: one query per kind present.
func (r *ShipmentRepository) withLines(ctx context.Context, rows []shipmentRow) ([]*shipping.Shipment, error) {
	byKind := map[shipping.ShipmentKind][]string{}
	for _, row := range rows {
		k := shipping.ShipmentKind(row.Kind)
		byKind[k] = append(byKind[k], row.ID)
	}
	lines := make(map[string][]shipping.ShipmentLine, len(rows))
	for kind, ids := range byKind {
		q := postgres.Statement(shipmentProductsSQL)
		if kind == shipping.SPD {
			q = shipmentCartonsSQL
		}
		err := r.run.Query(ctx, q, func(sr *sql.Rows) error {
			var shipmentID string
			var l shipping.ShipmentLine
			if err := sr.Scan(&shipmentID, &l.ItemID, &l.SKU, &l.Quantity); err != nil {
				return err
			}
			lines[shipmentID] = append(lines[shipmentID], l)
			return nil
		}, postgres.Array(ids))
		if err != nil {
			return nil, postgres.DBErr(err)
		}
	}
	out := make([]*shipping.Shipment, len(rows))
	for i, row := range rows {
		out[i] = shipmentFromRow(row, lines[row.ID])
	}
	return out, nil
}

func shipmentToRow(s *shipping.Shipment) shipmentRow {
	a := s.Address()
	row := shipmentRow{
		ID: s.ID(), OrganizationID: s.OrganizationID(), Kind: string(s.Kind()), Status: string(s.Status()),
		WarehouseID: s.Warehouse().ID, ShippingName: a.Name, ShippingCompany: a.Company,
		ShippingAddress1: a.Address1, ShippingAddress2: a.Address2, ShippingCity: a.City, ShippingState: a.State,
		ShippingZip: a.Zip, ShippingCountry: a.Country, ShippingPhone: a.Phone, Notes: s.Notes(), Test: s.Test(),
		CreatedAt: s.CreatedAt(), UpdatedAt: s.UpdatedAt(), SubmittedAt: s.SubmittedAt(), ShippedAt: s.ShippedAt(),
	}
	if t := s.Tracking(); t != nil {
		row.TrackingCarrier, row.TrackingNumber = &t.Carrier, &t.Number
	}
	if src := s.Source(); src != nil {
		t, id, num := src.Type, src.OrderID, src.OrderNumber
		row.SourceType, row.SourceOrderID, row.SourceOrderNumber = &t, &id, &num
	}
	return row
}

func shipmentFromRow(row shipmentRow, lines []shipping.ShipmentLine) *shipping.Shipment {
	p := shipping.RehydrateShipmentParams{
		NewShipmentParams: shipping.NewShipmentParams{
			ID: row.ID, OrganizationID: row.OrganizationID, Kind: shipping.ShipmentKind(row.Kind),
			Warehouse: domain.WarehouseRef{ID: row.WarehouseID, Name: row.WarehouseName},
			Address: shipping.Address{
				Name: row.ShippingName, Company: row.ShippingCompany, Address1: row.ShippingAddress1,
				Address2: row.ShippingAddress2, City: row.ShippingCity, State: row.ShippingState,
				Zip: row.ShippingZip, Country: row.ShippingCountry, Phone: row.ShippingPhone,
			},
			Notes: row.Notes, Lines: lines, Test: row.Test,
		},
		Status: shipping.ShipmentStatus(row.Status), CreatedAt: row.CreatedAt, UpdatedAt: row.UpdatedAt,
		SubmittedAt: row.SubmittedAt, ShippedAt: row.ShippedAt,
	}
	if row.TrackingCarrier != nil && row.TrackingNumber != nil {
		p.Tracking = &shipping.Tracking{Carrier: *row.TrackingCarrier, Number: *row.TrackingNumber}
	}
	if row.SourceType != nil && row.SourceOrderID != nil {
		src := &shipping.ShipmentSource{Type: *row.SourceType, OrderID: *row.SourceOrderID}
		if row.SourceOrderNumber != nil {
			src.OrderNumber = *row.SourceOrderNumber
		}
		p.Source = src
	}
	return shipping.RehydrateShipment(p)
}
