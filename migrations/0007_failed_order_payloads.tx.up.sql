-- Failed storefront orders keep their body (api/openapi.yaml, "When an order
-- fails" in docs/storefront-intake.md): the delivery's bytes as received, on
-- the order's receipt row, so that an operator can replay the order once the
-- organization's data is fixed.
--
-- A column of the receipt rather than a table of its own: the statements
-- that record a failure set it, and the statement that records a success
-- already updates the row, so it clears it without a statement or a write
-- more (a table would need a DELETE on every success). A first delivery that
-- succeeds stores NULL and keeps the row's update HOT.
--
-- A succeeded order never keeps its body (the check). The partial index holds
-- only rows that keep one: the replay of an organization's failed orders,
-- the retention purge and the failed-order gauges read it, and an order that
-- never fails never enters it (no index write on the success path).
ALTER TABLE order_receipts
    ADD COLUMN payload bytea,
    -- Not safe on a large order_receipts table: the check scans every receipt under the
    -- ALTER's ACCESS EXCLUSIVE lock (the intake waits).
    -- Applied already: docs/migrations.md, "Upgrading a large installation".
    -- squawk-ignore constraint-missing-not-valid
    ADD CONSTRAINT order_receipts_payload_failed CHECK (payload IS NULL OR status <> 'succeeded');

-- Not safe on a large order_receipts table: the build blocks writes to it until the
-- migration commits (the intake waits).
-- Applied already; before such an upgrade: docs/migrations.md, "Upgrading a large installation".
-- squawk-ignore require-concurrent-index-creation
CREATE INDEX order_receipts_kept_idx ON order_receipts (organization_id, order_id) WHERE payload IS NOT NULL;
