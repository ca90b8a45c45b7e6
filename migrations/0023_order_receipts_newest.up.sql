-- The console's failed orders (docs/benchmarks/console.md): an organization's receipts newest first
-- (listReceiptsSQL, which filters on status and error code). Without it the page reads every receipt
-- of the organization and sorts them: 250 ms at a million receipts, one per storefront order ever
-- received. With it the list walks the organization's receipts newest first and stops at its page
-- (0.5 ms). Not partial on the status: the prepared statement's one generic plan
-- (plan_cache_mode) cannot choose a partial index by a parameter; and an index that names the status
-- would make the intake's success update (processing → succeeded) leave HOT, where this one does not
-- (it names no column that update changes). Built CONCURRENTLY so that the intake goes on writing
-- receipts while it builds.
CREATE INDEX CONCURRENTLY IF NOT EXISTS order_receipts_newest_idx
    ON order_receipts (organization_id, last_received_at DESC, order_id DESC);
