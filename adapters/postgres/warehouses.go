package postgres

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/ports"
)

type organizationRow struct {
	bun.BaseModel `bun:"table:organizations"`

	ID                 string  `bun:"id,pk"`
	Name               string  `bun:"name"`
	DefaultWarehouseID *string `bun:"default_warehouse_id"`
}

// OrganizationRepository implements ports.OrganizationRepository.
type OrganizationRepository struct{ db bun.IDB }

var _ ports.OrganizationRepository = (*OrganizationRepository)(nil)

// Get returns an organization or domain.ErrNotFound.
func (r *OrganizationRepository) Get(ctx context.Context, id string) (domain.Organization, error) {
	var row organizationRow
	if err := r.db.NewSelect().Model(&row).Where("id = ?", id).Scan(ctx); err != nil {
		return domain.Organization{}, dbErr(err)
	}
	return domain.Organization{ID: row.ID, Name: row.Name, DefaultWarehouseID: deref(row.DefaultWarehouseID)}, nil
}

type warehouseRow struct {
	bun.BaseModel `bun:"table:warehouses,alias:w"`

	ID                 string   `bun:"id,pk"`
	Name               string   `bun:"name"`
	Description        *string  `bun:"description"`
	Active             bool     `bun:"active"`
	AddressName        string   `bun:"address_name"`
	AddressLine1       string   `bun:"address_line1"`
	AddressLine2       string   `bun:"address_line2"`
	AddressDistrict    string   `bun:"address_district"`
	AddressCity        string   `bun:"address_city"`
	AddressState       string   `bun:"address_state"`
	AddressCountryCode string   `bun:"address_country_code"`
	AddressPostalCode  string   `bun:"address_postal_code"`
	ContactName        string   `bun:"contact_name"`
	ContactEmail       string   `bun:"contact_email"`
	ContactPhoneNumber string   `bun:"contact_phone_number"`
	ContactFax         string   `bun:"contact_fax"`
	Tags               []string `bun:"tags,array"`
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
type WarehouseRepository struct{ db bun.IDB }

var _ ports.WarehouseRepository = (*WarehouseRepository)(nil)

func (r *WarehouseRepository) available(organizationID string, rows *[]warehouseRow) *bun.SelectQuery {
	return r.db.NewSelect().Model(rows).
		Join("JOIN warehouse_organizations AS wo ON wo.warehouse_id = w.id").
		Where("wo.organization_id = ?", organizationID).
		Where("w.active")
}

// ListActive returns one page of the organization's active warehouses,
// ordered by name then ID; it reads one row more than the page to tell
// whether more follow.
func (r *WarehouseRepository) ListActive(ctx context.Context, organizationID string, page ports.Page) ([]domain.Warehouse, bool, error) {
	var rows []warehouseRow
	err := r.available(organizationID, &rows).
		OrderExpr("w.name ASC, w.id ASC").Offset(page.Skip).Limit(page.Take + 1).Scan(ctx)
	if err != nil {
		return nil, false, dbErr(err)
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
	var rows []warehouseRow
	if err := r.available(organizationID, &rows).Where("w.id = ?", warehouseID).Limit(1).Scan(ctx); err != nil {
		return domain.Warehouse{}, dbErr(err)
	}
	if len(rows) == 0 {
		return domain.Warehouse{}, domain.ErrNotFound
	}
	return rows[0].toDomain(), nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
