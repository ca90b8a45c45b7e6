-- A fixture of the cluster test (tag schemachange): 9001's column filled outside a transaction, in
-- batches of 5,000 receipts in primary key order, each committing by itself, then indexed
-- concurrently. Safe to run again after a lock timeout: filled rows are skipped, and the index is
-- dropped (a failed concurrent build leaves an INVALID one) and built again.
DO $$
DECLARE
    last_org text := '';
    last_order bigint := 0;
    upto_org text;
    upto_order bigint;
BEGIN
    LOOP
        SELECT b.organization_id, b.order_id INTO upto_org, upto_order
        FROM (SELECT organization_id, order_id FROM order_receipts
              WHERE (organization_id, order_id) > (last_org, last_order)
              ORDER BY organization_id, order_id LIMIT 5000) b
        ORDER BY b.organization_id DESC, b.order_id DESC LIMIT 1;
        EXIT WHEN upto_org IS NULL;
        UPDATE order_receipts SET received_on = (first_received_at AT TIME ZONE 'UTC')::date
        WHERE (organization_id, order_id) > (last_org, last_order)
          AND (organization_id, order_id) <= (upto_org, upto_order)
          AND received_on IS NULL;
        last_org := upto_org;
        last_order := upto_order;
        COMMIT;
    END LOOP;
END
$$;
--bun:split
DROP INDEX CONCURRENTLY IF EXISTS order_receipts_received_on_idx;
--bun:split
CREATE INDEX CONCURRENTLY IF NOT EXISTS order_receipts_received_on_idx ON order_receipts (organization_id, received_on);
