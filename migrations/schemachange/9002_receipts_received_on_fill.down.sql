DROP INDEX CONCURRENTLY IF EXISTS order_receipts_received_on_idx;
