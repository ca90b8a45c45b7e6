ALTER TABLE order_receipts DROP COLUMN IF EXISTS received_on;
