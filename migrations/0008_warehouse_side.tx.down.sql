DROP TABLE stock_movements;
DROP TABLE warehouse_services;
DROP TABLE warehouse_receipt_lines;
DROP TABLE warehouse_receipts;
DROP INDEX shipments_warehouse_queue_idx;
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM shipments WHERE status = 'shipped') THEN
        RAISE EXCEPTION 'shipped shipments exist: the schema before 0008 cannot hold them';
    END IF;
END;
$$;
ALTER TABLE shipments
    DROP CONSTRAINT shipments_shipped_check,
    DROP COLUMN shipped_at,
    DROP COLUMN tracking_carrier,
    DROP COLUMN tracking_number,
    DROP CONSTRAINT shipments_status_check,
    ADD CONSTRAINT shipments_status_check CHECK (status IN ('draft', 'pending', 'cancelled'));
