DROP INDEX CONCURRENTLY IF EXISTS order_receipts_newest_idx;
