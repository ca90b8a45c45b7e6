package postgres

import (
	"context"
	"database/sql"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/warehouse"
	warehouseports "github.com/acme3pl/fulfillment/ports/warehouse"
)

// WarehouseServiceRepository implements warehouseports.ServiceRepository.
type WarehouseServiceRepository struct {
	run runner
}

var _ warehouseports.ServiceRepository = (*WarehouseServiceRepository)(nil)

// createServiceSQL inserts a service record unless the warehouse has one
// under the reference (the unique (warehouse_id, reference): a second
// insert waits for the first's transaction, then does nothing).
const createServiceSQL sqlInsert = `INSERT INTO warehouse_services (id, warehouse_id, organization_id, reference, service,
	quantity_milli, performed_at, performed_at_given, note, created_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
ON CONFLICT (warehouse_id, reference) DO NOTHING`

// serviceByReferenceSQL reads the service of warehouse $1 under reference $2.
const serviceByReferenceSQL sqlSelect = `SELECT id, organization_id, service, quantity_milli, performed_at, performed_at_given, note, created_at
FROM warehouse_services WHERE warehouse_id = $1 AND reference = $2`

// Create implements warehouseports.ServiceRepository.
func (r *WarehouseServiceRepository) Create(ctx context.Context, s *warehouse.ServiceRecord) (*warehouse.ServiceRecord, bool, error) {
	n, err := r.run.exec(ctx, createServiceSQL, s.ID(), s.WarehouseID(), s.OrganizationID(), s.Reference(), s.Service(),
		s.QuantityMilli(), s.PerformedAt(), s.PerformedAtGiven(), s.Note(), s.CreatedAt())
	if err != nil {
		return nil, false, dbErr(err)
	}
	if n == 1 {
		return s, true, nil
	}
	p := warehouse.RehydrateServiceRecordParams{WarehouseID: s.WarehouseID(), Reference: s.Reference()}
	err = r.run.query(ctx, serviceByReferenceSQL, func(rows *sql.Rows) error {
		return rows.Scan(&p.ID, &p.OrganizationID, &p.Service, &p.QuantityMilli, &p.PerformedAt, &p.PerformedAtGiven,
			&p.Note, &p.CreatedAt)
	}, s.WarehouseID(), s.Reference())
	if err != nil {
		return nil, false, dbErr(err)
	}
	if p.ID == "" {
		return nil, false, domain.ErrNotFound
	}
	return warehouse.RehydrateServiceRecord(p), false, nil
}

// redateServiceSQL moves service $1 to $2 (performedAt; createdAt $3).
const redateServiceSQL sqlUpdate = `UPDATE warehouse_services SET performed_at = $2, created_at = $3 WHERE id = $1`

// Redate implements warehouseports.ServiceRepository.
func (r *WarehouseServiceRepository) Redate(ctx context.Context, s *warehouse.ServiceRecord) error {
	_, err := r.run.exec(ctx, redateServiceSQL, s.ID(), s.PerformedAt(), s.CreatedAt())
	return dbErr(err)
}
