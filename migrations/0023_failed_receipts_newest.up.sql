-- The console's failed orders (docs/benchmarks/console.md): an organization's failed receipts, newest
-- first (listReceiptsSQL with status 'failed', optionally one error code). Without it the page reads
-- every receipt of the organization and sorts them: 250 ms at a million receipts, one per storefront
-- order ever received. Partial: only failed receipts are in it, a few thousand where the receipts
-- are millions. Built CONCURRENTLY so that the intake goes on writing receipts while it builds.
CREATE INDEX CONCURRENTLY IF NOT EXISTS order_receipts_failed_newest_idx
    ON order_receipts (organization_id, last_received_at DESC, order_id DESC) WHERE status = 'failed';
