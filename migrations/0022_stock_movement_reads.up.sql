-- The console's reads of the stock ledger (docs/console.md): an item's movements, newest first (the
-- inventory page's ledger of a product or carton), and a shipment's (the shipments page). The ledger
-- grows with every receipt and ship; both indexes are built CONCURRENTLY so that the intake and the
-- warehouses' reports go on writing while they build (minutes at tens of millions of movements). The
-- shipment's is partial: only ships name one.
CREATE INDEX CONCURRENTLY IF NOT EXISTS stock_movements_item_idx
    ON stock_movements (organization_id, (coalesce(product_id, carton_id)), occurred_at, id);
--bun:split
CREATE INDEX CONCURRENTLY IF NOT EXISTS stock_movements_shipment_idx
    ON stock_movements (shipment_id) WHERE shipment_id IS NOT NULL;
