ALTER TABLE carton_stock DROP CONSTRAINT IF EXISTS carton_stock_on_hand_bound;
ALTER TABLE product_stock DROP CONSTRAINT IF EXISTS product_stock_on_hand_bound;
