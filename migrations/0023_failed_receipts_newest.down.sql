DROP INDEX CONCURRENTLY IF EXISTS order_receipts_failed_newest_idx;
