DROP INDEX IF EXISTS shipments_source_order_key;
ALTER TABLE shipment_cartons DROP CONSTRAINT IF EXISTS shipment_cartons_quantity_bound;
ALTER TABLE shipment_items DROP CONSTRAINT IF EXISTS shipment_items_quantity_bound;
