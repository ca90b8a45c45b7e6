DROP INDEX CONCURRENTLY IF EXISTS stock_movements_shipment_idx;
--bun:split
DROP INDEX CONCURRENTLY IF EXISTS stock_movements_item_idx;
