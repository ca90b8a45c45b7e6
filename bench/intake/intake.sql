-- pgbench script: one order intake's transaction, statement for statement the SQL the service
-- runs for a new order (adapters/postgres: claimOrderSQL, acceptOrderSQL), with pgbench
-- variables in place of the parameters (docs/benchmarks/intake.md;
-- bench/baseline/benchsql_test.go fails when the two differ). Run with -M prepared
-- and -D org=… -D wh=… -D skus=N; products prod_bench_1..N with SKUs BENCH-00001.. must exist,
-- and wh must be org's default warehouse.
\set oid random(1000000000000000, 9000000000000000000)
\set s1 random(1, :skus)
\set s2 (:s1 % :skus) + 1
\set s3 (:s2 % :skus) + 1
\set q1 random(1, 3)
\set q2 random(1, 3)
\set q3 random(1, 3)
BEGIN;
WITH claimed AS (
    INSERT INTO order_receipts AS r
        (organization_id, order_id, order_number, status, attempts, trace_id, first_received_at, last_received_at)
    VALUES (:org, :oid, 1042, 'processing', 1, '4bf92f3577b34da6a3ce929d0e0e4736', now(), now())
    ON CONFLICT (organization_id, order_id) DO UPDATE SET
        last_received_at = greatest(r.last_received_at, excluded.last_received_at),
        order_number     = coalesce(r.order_number, excluded.order_number),
        status           = CASE WHEN r.status = 'succeeded' THEN r.status ELSE 'processing' END,
        attempts         = CASE WHEN r.status = 'succeeded' THEN r.attempts ELSE r.attempts + 1 END,
        trace_id         = CASE WHEN r.status = 'succeeded' THEN r.trace_id ELSE excluded.trace_id END
    RETURNING organization_id, order_id, order_number, status, skipped, attempts, last_error,
        shipment_id, trace_id, first_received_at, last_received_at
), product AS (
    SELECT p.id, p.sku, p.name
    FROM unnest(ARRAY['BENCH-' || lpad(:s1::text, 5, '0'), 'BENCH-' || lpad(:s2::text, 5, '0'),
        'BENCH-' || lpad(:s3::text, 5, '0')]) AS s(sku)
    CROSS JOIN LATERAL (
        SELECT p.id, p.sku, p.name FROM products AS p WHERE p.organization_id = :org AND p.sku = s.sku LIMIT 1
    ) AS p
), warehouse AS (
    SELECT w.id, w.name FROM organizations AS o
    JOIN warehouses AS w ON w.id = o.default_warehouse_id AND w.active
    WHERE o.id = :org
    UNION ALL
    (SELECT w.id, w.name FROM warehouse_organizations AS wo
    JOIN warehouses AS w ON w.id = wo.warehouse_id AND w.active
    WHERE wo.organization_id = :org
    ORDER BY w.name, w.id
    LIMIT 1)
    LIMIT 1
)
SELECT claimed.*, product.id, product.sku, product.name, warehouse.id, warehouse.name
FROM claimed
LEFT JOIN product ON true
LEFT JOIN warehouse ON true;
WITH reserved AS (
    INSERT INTO product_stock AS s (organization_id, product_id, warehouse_id, on_hand, reserved)
    SELECT :org, v.id, :wh, 0, sum(v.q) FROM unnest(ARRAY['prod_bench_' || :s1, 'prod_bench_' || :s2, 'prod_bench_' || :s3],
        ARRAY[:q1, :q2, :q3]::bigint[]) AS v(id, q) GROUP BY v.id ORDER BY v.id
    ON CONFLICT (product_id, warehouse_id) DO UPDATE SET reserved = s.reserved + excluded.reserved
), new_shipment AS (
    INSERT INTO shipments (id, organization_id, kind, status, warehouse_id, shipping_name, shipping_company,
        shipping_address1, shipping_address2, shipping_city, shipping_state, shipping_zip, shipping_country,
        shipping_phone, notes, source_type, source_order_id, source_order_number, test, created_at, updated_at,
        submitted_at)
    VALUES ('shp_' || :oid, :org, 'pick_pack', 'pending', :wh, 'Zoë Müller', '', 'Straße des 17. Juni 135', '', 'Berlin',
        '', '10623', 'DE', '+49 30 1234567', 'Bitte beim Nachbarn abgeben', 'storefront', :oid, 1042, true, now(), now(), now())
), new_items AS (
    INSERT INTO shipment_items (organization_id, shipment_id, product_id, position, quantity)
    SELECT :org, 'shp_' || :oid, v.item_id, (v.position - 1)::int, v.quantity
    FROM unnest(ARRAY['prod_bench_' || :s1, 'prod_bench_' || :s2, 'prod_bench_' || :s3], ARRAY[:q1, :q2, :q3]::bigint[])
        WITH ORDINALITY AS v(item_id, quantity, position)
)
UPDATE order_receipts SET status = 'succeeded', skipped = NULL, last_error = NULL, shipment_id = 'shp_' || :oid, payload = NULL
WHERE organization_id = :org AND order_id = :oid;
END;
