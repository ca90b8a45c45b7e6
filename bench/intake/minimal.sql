-- pgbench script: the minimal transaction of one storefront order, the yardstick of the
-- database's work per order (docs/benchmarks/intake.md): look up the order's SKUs, insert its
-- receipt, insert the shipment and its items, mark the receipt succeeded — one transaction, one
-- statement each, no stock reserved, no warehouse chosen, no exactly-once. The SKUs are looked
-- up one index probe each (the plain `p.sku = ANY(...)` reads every product of the organization
-- under a generic plan: the yardstick would carry a cost the least transaction need not pay). The
-- shipment's statement is the intake's own. Run with -M prepared and -D org=… -D wh=… -D skus=N,
-- as intake.sql.
\set oid random(1000000000000000, 9000000000000000000)
\set s1 random(1, :skus)
\set s2 (:s1 % :skus) + 1
\set s3 (:s2 % :skus) + 1
\set q1 random(1, 3)
\set q2 random(1, 3)
\set q3 random(1, 3)
BEGIN;
SELECT p.id, p.sku, p.name
FROM unnest(ARRAY['BENCH-' || lpad(:s1::text, 5, '0'), 'BENCH-' || lpad(:s2::text, 5, '0'),
        'BENCH-' || lpad(:s3::text, 5, '0')]) AS s(sku)
    CROSS JOIN LATERAL (SELECT p.id, p.sku, p.name FROM products AS p
        WHERE p.organization_id = :org AND p.sku = s.sku LIMIT 1) AS p;
INSERT INTO order_receipts (organization_id, order_id, order_number, status, attempts, trace_id, first_received_at,
    last_received_at)
VALUES (:org, :oid, 1042, 'processing', 1, '4bf92f3577b34da6a3ce929d0e0e4736', now(), now());
WITH new_shipment AS (
    INSERT INTO shipments (id, organization_id, kind, status, warehouse_id, shipping_name, shipping_company,
        shipping_address1, shipping_address2, shipping_city, shipping_state, shipping_zip, shipping_country,
        shipping_phone, notes, source_type, source_order_id, source_order_number, test, created_at, updated_at,
        submitted_at)
    VALUES ('shp_' || :oid, :org, 'pick_pack', 'pending', :wh, 'Zoë Müller', '', 'Straße des 17. Juni 135', '', 'Berlin',
        '', '10623', 'DE', '+49 30 1234567', 'Bitte beim Nachbarn abgeben', 'storefront', :oid, 1042, true, now(), now(), now())
)
INSERT INTO shipment_items (organization_id, shipment_id, product_id, position, quantity)
SELECT :org, 'shp_' || :oid, v.item_id, (v.position - 1)::int, v.quantity
FROM unnest(ARRAY['prod_bench_' || :s1, 'prod_bench_' || :s2, 'prod_bench_' || :s3], ARRAY[:q1, :q2, :q3]::bigint[])
    WITH ORDINALITY AS v(item_id, quantity, position);
UPDATE order_receipts SET status = 'succeeded', shipment_id = 'shp_' || :oid
    WHERE organization_id = :org AND order_id = :oid;
END;
