DROP TABLE IF EXISTS order_receipts, shipment_cartons, shipment_items, shipments, webhook_secrets, api_keys,
    invoice_items, invoices, carton_stock, product_stock, cartons, products, warehouse_organizations,
    organizations, warehouses CASCADE;
DROP FUNCTION IF EXISTS invoices_check_total();
