package postgres

import (
	"context"
	"database/sql"

	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/ports"
)

type warehouseRow struct {
	ID                 string
	Name               string
	Description        *string
	Active             bool
	AddressName        string
	AddressLine1       string
	AddressLine2       string
	AddressDistrict    string
	AddressCity        string
	AddressState       string
	AddressCountryCode string
	AddressPostalCode  string
	ContactName        string
	ContactEmail       string
	ContactPhoneNumber string
	ContactFax         string
	Tags               []string
}

func (w warehouseRow) toDomain() domain.Warehouse {
	tags := w.Tags
	if tags == nil {
		tags = []string{}
	}
	return domain.Warehouse{
		ID: w.ID, Name: w.Name, Description: w.Description, Active: w.Active,
		Address: domain.Address{
			Name: w.AddressName, Line1: w.AddressLine1, Line2: w.AddressLine2, District: w.AddressDistrict,
			City: w.AddressCity, State: w.AddressState, CountryCode: w.AddressCountryCode, PostalCode: w.AddressPostalCode,
		},
		Contact: domain.Contact{Name: w.ContactName, Email: w.ContactEmail, PhoneNumber: w.ContactPhoneNumber, Fax: w.ContactFax},
		Tags:    tags,
	}
}

func warehouseToRow(w domain.Warehouse) warehouseRow {
	tags := w.Tags
	if tags == nil {
		tags = []string{}
	}
	return warehouseRow{
		ID: w.ID, Name: w.Name, Description: w.Description, Active: w.Active,
		AddressName: w.Address.Name, AddressLine1: w.Address.Line1, AddressLine2: w.Address.Line2,
		AddressDistrict: w.Address.District, AddressCity: w.Address.City, AddressState: w.Address.State,
		AddressCountryCode: w.Address.CountryCode, AddressPostalCode: w.Address.PostalCode,
		ContactName: w.Contact.Name, ContactEmail: w.Contact.Email, ContactPhoneNumber: w.Contact.PhoneNumber,
		ContactFax: w.Contact.Fax, Tags: tags,
	}
}

// WarehouseRepository implements ports.WarehouseRepository.
type WarehouseRepository struct{ run runner }

var _ ports.WarehouseRepository = (*WarehouseRepository)(nil)

const (
	// availableWarehousesSQL reads the organization's ($1) active
	// warehouses in scanWarehouse's order; the statements below complete it.
	availableWarehousesSQL sqlSelect = `SELECT w.id, w.name, w.description, w.active, w.address_name, w.address_line1, w.address_line2,
	w.address_district, w.address_city, w.address_state, w.address_country_code, w.address_postal_code,
	w.contact_name, w.contact_email, w.contact_phone_number, w.contact_fax, w.tags
FROM warehouses AS w JOIN warehouse_organizations AS wo ON wo.warehouse_id = w.id
WHERE wo.organization_id = $1 AND w.active`

	// A page by name then ID, one row more than the page ($3) to tell
	// whether more follow.
	activeWarehousesSQL sqlSelect = availableWarehousesSQL + ` ORDER BY w.name ASC, w.id ASC OFFSET $2 LIMIT $3`
	activeWarehouseSQL  sqlSelect = availableWarehousesSQL + ` AND w.id = $2`

	// warehouseActiveSQL reads whether the warehouse $1 is active (no row:
	// unknown).
	warehouseActiveSQL sqlSelect = `SELECT active FROM warehouses WHERE id = $1`
)

// IsActive tells whether the warehouse exists and is active.
func (r *WarehouseRepository) IsActive(ctx context.Context, warehouseID string) (bool, error) {
	var active bool
	err := r.run.query(ctx, warehouseActiveSQL, func(sr *sql.Rows) error { return sr.Scan(&active) }, warehouseID)
	return active, dbErr(err)
}

// ListActive returns one page of the organization's active warehouses,
// ordered by name then ID.
func (r *WarehouseRepository) ListActive(ctx context.Context, organizationID string, page ports.Page) ([]domain.Warehouse, bool, error) {
	rows, err := r.read(ctx, activeWarehousesSQL, organizationID, page.Skip, page.Take+1)
	if err != nil {
		return nil, false, err
	}
	rows, more := trimPage(rows, page)
	out := make([]domain.Warehouse, len(rows))
	for i, row := range rows {
		out[i] = row.toDomain()
	}
	return out, more, nil
}

// ActiveForOrganization returns an active warehouse available to the
// organization, or domain.ErrNotFound.
func (r *WarehouseRepository) ActiveForOrganization(ctx context.Context, organizationID, warehouseID string) (domain.Warehouse, error) {
	rows, err := r.read(ctx, activeWarehouseSQL, organizationID, warehouseID)
	if err != nil {
		return domain.Warehouse{}, err
	}
	if len(rows) == 0 {
		return domain.Warehouse{}, domain.ErrNotFound
	}
	return rows[0].toDomain(), nil
}

func (r *WarehouseRepository) read(ctx context.Context, q statement, args ...any) ([]warehouseRow, error) {
	var rows []warehouseRow
	err := r.run.query(ctx, q, func(sr *sql.Rows) error {
		var w warehouseRow
		err := sr.Scan(&w.ID, &w.Name, &w.Description, &w.Active, &w.AddressName, &w.AddressLine1, &w.AddressLine2,
			&w.AddressDistrict, &w.AddressCity, &w.AddressState, &w.AddressCountryCode, &w.AddressPostalCode,
			&w.ContactName, &w.ContactEmail, &w.ContactPhoneNumber, &w.ContactFax, pgdialect.Array(&w.Tags))
		rows = append(rows, w)
		return err
	}, args...)
	return rows, dbErr(err)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
