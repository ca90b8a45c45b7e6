-- Stock rows name their organization (docs/billing.md, "Speed"). The
-- day's storage of every organization sums on hand by organization and
-- warehouse: with the organization on the stock row that is one pass over
-- product_stock and carton_stock, where it was a join of every stock row
-- with its product or carton. The composite foreign keys replace the
-- item-only ones, so a row can never name another organization than its
-- item's; the organization never changes, so updates of on hand and
-- reserved stay HOT. The fill rewrites every stock row once, with both
-- tables locked until the migration commits: ~1 s at 100,000 stock rows.
ALTER TABLE product_stock ADD COLUMN organization_id text;
UPDATE product_stock s SET organization_id = p.organization_id FROM products p WHERE p.id = s.product_id;
-- Not safe on large stock tables: SET NOT NULL scans every stock row, under the lock the
-- update above took (~1 s in all at 100,000 rows).
-- Applied already: docs/migrations.md, "Upgrading a large installation".
-- squawk-ignore adding-not-nullable-field
ALTER TABLE product_stock ALTER COLUMN organization_id SET NOT NULL,
    DROP CONSTRAINT product_stock_product_id_fkey,
    -- The composite key scans product_stock against products with both locked (the
    -- reservations of the intake wait).
    -- Applied already: docs/migrations.md, "Upgrading a large installation".
    -- squawk-ignore constraint-missing-not-valid, adding-foreign-key-constraint
    ADD FOREIGN KEY (organization_id, product_id) REFERENCES products (organization_id, id);
-- Not safe on a large product_stock table: the build blocks writes to it until the
-- migration commits (the intake's reservations wait).
-- Applied already; before such an upgrade: docs/migrations.md, "Upgrading a large installation".
-- squawk-ignore require-concurrent-index-creation
CREATE INDEX product_stock_organization_idx ON product_stock (organization_id);

ALTER TABLE carton_stock ADD COLUMN organization_id text;
UPDATE carton_stock s SET organization_id = c.organization_id FROM cartons c WHERE c.id = s.carton_id;
-- As for product_stock above. Applied already: docs/migrations.md, "Upgrading a large installation".
-- squawk-ignore adding-not-nullable-field
ALTER TABLE carton_stock ALTER COLUMN organization_id SET NOT NULL,
    DROP CONSTRAINT carton_stock_carton_id_fkey,
    -- As for product_stock above. Applied already: docs/migrations.md, "Upgrading a large installation".
    -- squawk-ignore constraint-missing-not-valid, adding-foreign-key-constraint
    ADD FOREIGN KEY (organization_id, carton_id) REFERENCES cartons (organization_id, id);
-- Not safe on a large carton_stock table: the build blocks writes to it until the
-- migration commits (the intake's reservations wait).
-- Applied already; before such an upgrade: docs/migrations.md, "Upgrading a large installation".
-- squawk-ignore require-concurrent-index-creation
CREATE INDEX carton_stock_organization_idx ON carton_stock (organization_id);
