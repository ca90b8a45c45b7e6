package warehouse

import (
	"context"
	"database/sql"
	"github.com/acme3pl/fulfillment/adapters/postgres"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/warehouse"
	warehouseports "github.com/acme3pl/fulfillment/ports/warehouse"
)

// ServiceRepository implements warehouseports.ServiceRepository.
type ServiceRepository struct {
	run postgres.Runner
}

var _ warehouseports.ServiceRepository = (*ServiceRepository)(nil)

// createServiceSQL inserts a service record unless the warehouse has one
// under the reference (the unique (warehouse_id, reference): a second
// insert waits for the first's transaction, then does nothing).
const createServiceSQL postgres.SQLInsert = `INSERT INTO warehouse_services (id, warehouse_id, organization_id, reference, service,
	quantity_milli, performed_at, performed_at_given, note, created_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
ON CONFLICT (warehouse_id, reference) DO NOTHING`

// serviceByReferenceSQL reads the service of warehouse $1 under reference $2.
const serviceByReferenceSQL postgres.SQLSelect = `SELECT id, organization_id, service, quantity_milli, performed_at, performed_at_given, note, created_at
FROM warehouse_services WHERE warehouse_id = $1 AND reference = $2`

// Create implements warehouseports.ServiceRepository.
func (r *ServiceRepository) Create(ctx context.Context, s *warehouse.ServiceRecord) (*warehouse.ServiceRecord, bool, error) {
	n, err := r.run.Exec(ctx, createServiceSQL, s.ID(), s.WarehouseID(), s.OrganizationID(), s.Reference(), s.Service(),
		s.QuantityMilli(), s.PerformedAt(), s.PerformedAtGiven(), s.Note(), s.CreatedAt())
	if err != nil {
		return nil, false, postgres.DBErr(err)
	}
	if n == 1 {
		return s, true, nil
	}
	p := warehouse.RehydrateServiceRecordParams{WarehouseID: s.WarehouseID(), Reference: s.Reference()}
	err = r.run.Query(ctx, serviceByReferenceSQL, func(rows *sql.Rows) error {
		return rows.Scan(&p.ID, &p.OrganizationID, &p.Service, &p.QuantityMilli, &p.PerformedAt, &p.PerformedAtGiven,
			&p.Note, &p.CreatedAt)
	}, s.WarehouseID(), s.Reference())
	if err != nil {
		return nil, false, postgres.DBErr(err)
	}
	if p.ID == "" {
		return nil, false, domain.ErrNotFound
	}
	return warehouse.RehydrateServiceRecord(p), false, nil
}

// redateServiceSQL moves service $1 to $2 (performedAt; createdAt $3).
const redateServiceSQL postgres.SQLUpdate = `UPDATE warehouse_services SET performed_at = $2, created_at = $3 WHERE id = $1`

// Redate implements warehouseports.ServiceRepository.
func (r *ServiceRepository) Redate(ctx context.Context, s *warehouse.ServiceRecord) error {
	_, err := r.run.Exec(ctx, redateServiceSQL, s.ID(), s.PerformedAt(), s.CreatedAt())
	return postgres.DBErr(err)
}
