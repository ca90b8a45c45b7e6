-- Two facts the database now keeps by itself:
--
-- 1. Every shipment line's quantity is 1 … 1,000,000,000 (the domain's
--    MaxLineQuantity). Stock counters are sums of such lines, so none can come
--    near bigint's limit, and no order can poison the arithmetic of later orders
--    of the same SKU.
-- 2. A storefront order makes at most one shipment per organization. The
--    intake's exactly-once is kept by the claim of the order's receipt row; this
--    index is the safety net under it: a second shipment for one order fails its
--    transaction instead of being stored.
--
-- The checks are added NOT VALID, so that the migration applies even where an
-- older version stored a larger quantity, and then validated when the data
-- allows; otherwise a WARNING names them and they hold for every new row (the
-- query to find the old rows is in docs/decisions.md).

ALTER TABLE shipment_items
    ADD CONSTRAINT shipment_items_quantity_bound CHECK (quantity BETWEEN 1 AND 1000000000) NOT VALID;
ALTER TABLE shipment_cartons
    ADD CONSTRAINT shipment_cartons_quantity_bound CHECK (quantity BETWEEN 1 AND 1000000000) NOT VALID;

DO $$
BEGIN
    ALTER TABLE shipment_items VALIDATE CONSTRAINT shipment_items_quantity_bound;
    ALTER TABLE shipment_cartons VALIDATE CONSTRAINT shipment_cartons_quantity_bound;
EXCEPTION WHEN check_violation THEN
    RAISE WARNING 'shipment lines with a quantity outside 1..1000000000 exist; the bound holds for new rows only until they are cancelled and the constraints validated';
END;
$$;

-- Not safe on a large shipments table: the build blocks writes to it until the
-- migration commits (the intake's shipment inserts wait).
-- Applied already; before such an upgrade: docs/migrations.md, "Upgrading a large installation".
-- squawk-ignore require-concurrent-index-creation
CREATE UNIQUE INDEX shipments_source_order_key ON shipments (organization_id, source_order_id)
    WHERE source_order_id IS NOT NULL;
