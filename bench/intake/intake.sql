-- pgbench script: the SQL transaction equivalent to one order intake
-- (docs/benchmarks/intake.md). Run with -M prepared and -D org=… -D wh=…
-- -D skus=N; products prod_bench_1..N with SKUs BENCH-00001.. must exist.
\set oid random(1000000000000000, 9000000000000000000)
\set s1 random(1, :skus)
\set s2 (:s1 % :skus) + 1
\set s3 (:s2 % :skus) + 1
BEGIN;
SELECT id, sku FROM products WHERE organization_id = :org
    AND sku IN ('BENCH-' || lpad(:s1::text, 5, '0'), 'BENCH-' || lpad(:s2::text, 5, '0'), 'BENCH-' || lpad(:s3::text, 5, '0'));
INSERT INTO order_receipts (organization_id, order_id, order_number, status, attempts, trace_id, first_received_at, last_received_at)
    VALUES (:org, :oid, 1042, 'processing', 1, '', now(), now()) ON CONFLICT DO NOTHING;
INSERT INTO shipments (id, organization_id, kind, status, warehouse_id, shipping_name, shipping_company, shipping_address1,
        shipping_address2, shipping_city, shipping_state, shipping_zip, shipping_country, shipping_phone, notes,
        source_type, source_order_id, source_order_number, test, created_at, updated_at, submitted_at)
    VALUES ('shp_' || :oid, :org, 'pick_pack', 'pending', :wh, 'Zoë Müller', '', 'Straße des 17. Juni 135', '', 'Berlin',
        '', '10623', 'DE', '+49 30 1234567', 'Bitte beim Nachbarn abgeben', 'storefront', :oid, 1042, true, now(), now(), now());
INSERT INTO shipment_items (organization_id, shipment_id, product_id, position, quantity)
    VALUES (:org, 'shp_' || :oid, 'prod_bench_' || :s1, 0, 1), (:org, 'shp_' || :oid, 'prod_bench_' || :s2, 1, 2),
           (:org, 'shp_' || :oid, 'prod_bench_' || :s3, 2, 1);
UPDATE order_receipts SET status = 'succeeded', shipment_id = 'shp_' || :oid
    WHERE organization_id = :org AND order_id = :oid;
END;
