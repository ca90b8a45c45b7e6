-- Dropping the column drops its index and the composite foreign key.
ALTER TABLE carton_stock DROP COLUMN organization_id, ADD FOREIGN KEY (carton_id) REFERENCES cartons (id);
ALTER TABLE product_stock DROP COLUMN organization_id, ADD FOREIGN KEY (product_id) REFERENCES products (id);
