-- pgbench script: the minimal transaction of one ship, the yardstick of the database's work per ship
-- (docs/benchmarks.md, "The warehouse's loop"): the same row writes as the service's ship — the
-- shipment locked, its three stock rows' on hand and reserved down, three stock movements, the
-- shipment marked shipped — one statement each, with the items known in advance (no read of its
-- lines, no check of on hand). Shipments shp_pgb_1..n of bench/ship/pending.sql, picked at random
-- (one shipped again updates the same rows). Run with -M prepared and -D org=… -D wh=… -D skus=… -D n=….
\set g random(1, :n)
\set p1 ((7919 * :g) % :skus) + 1
\set p2 ((7919 * :g + 331) % :skus) + 1
\set p3 ((7919 * :g + 662) % :skus) + 1
BEGIN;
SELECT id, status FROM shipments WHERE organization_id = :org AND id = 'shp_pgb_' || :g FOR UPDATE;
UPDATE product_stock SET on_hand = on_hand - 1, reserved = greatest(reserved - 1, 0)
WHERE warehouse_id = :wh AND product_id IN ('prod_bench_' || :p1, 'prod_bench_' || :p2, 'prod_bench_' || :p3);
INSERT INTO stock_movements (organization_id, warehouse_id, product_id, quantity, reason, shipment_id, occurred_at)
VALUES (:org, :wh, 'prod_bench_' || :p1, -1, 'shipment', 'shp_pgb_' || :g, now()),
    (:org, :wh, 'prod_bench_' || :p2, -1, 'shipment', 'shp_pgb_' || :g, now()),
    (:org, :wh, 'prod_bench_' || :p3, -1, 'shipment', 'shp_pgb_' || :g, now());
UPDATE shipments SET status = 'shipped', updated_at = now(), shipped_at = now(), tracking_carrier = 'UPS',
    tracking_number = 'T' || :g
WHERE organization_id = :org AND id = 'shp_pgb_' || :g;
END;
