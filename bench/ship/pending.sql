-- psql script of the ship benchmark (bench/ship/run.sh): :n pending Pick & Pack shipments of org_bench
-- at wh_bench named :'prefix' || 1..n, three products of the intake benchmark's fixture each (one unit
-- of products (7919 g + 331 k) mod :skus + 1, k = 0, 1, 2: a ship updates three stock rows, as the
-- intake's orders reserve three, and consecutive shipments — which the load generator ships at once —
-- share none, as pgbench's random picks rarely do), reserved at the warehouse as a submission reserves
-- them; and plenty on hand, so that no ship is short. Run with psql -v n=… -v prefix=… -v skus=….
INSERT INTO shipments (id, organization_id, kind, status, warehouse_id, shipping_name, shipping_company,
    shipping_address1, shipping_address2, shipping_city, shipping_state, shipping_zip, shipping_country,
    shipping_phone, notes, test, created_at, updated_at, submitted_at)
SELECT :'prefix' || g, 'org_bench', 'pick_pack', 'pending', 'wh_bench', 'Zoë Müller', '', 'Straße des 17. Juni 135', '',
    'Berlin', '', '10623', 'DE', '+49 30 1234567', '', true, now(), now(), now()
FROM generate_series(1, :n) AS g;
INSERT INTO shipment_items (organization_id, shipment_id, product_id, position, quantity)
SELECT 'org_bench', :'prefix' || g, 'prod_bench_' || ((7919 * g + 331 * k) % :skus + 1), k, 1
FROM generate_series(1, :n) AS g, generate_series(0, 2) AS k;
INSERT INTO product_stock AS s (organization_id, product_id, warehouse_id, on_hand, reserved)
SELECT 'org_bench', 'prod_bench_' || p, 'wh_bench', 1000000000, 0 FROM generate_series(1, :skus) AS p
ON CONFLICT (product_id, warehouse_id) DO UPDATE SET on_hand = 1000000000;
UPDATE product_stock AS s SET reserved = s.reserved + r.q
FROM (SELECT product_id, sum(quantity) AS q FROM shipment_items WHERE shipment_id LIKE :'prefix' || '%' GROUP BY 1) AS r
WHERE s.warehouse_id = 'wh_bench' AND s.product_id = r.product_id;
