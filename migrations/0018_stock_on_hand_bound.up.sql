-- On hand of one item at one warehouse stays at most 10^12 units (docs/receiving.md, "Bounds"): a
-- receipt or fixture row that would pass it is refused. The statement that moves stock checks it
-- with the balance locked; these CHECKs are the database's own word on it, which no statement can
-- race. Outside a transaction, in two steps each: the constraint is added NOT VALID (a quick catalog
-- change under a brief lock; it holds for new and updated rows at once), then validated by a scan
-- that takes only a SHARE UPDATE EXCLUSIVE lock, so that reads and writes go on. Safe to run again:
-- the constraint is dropped and added anew. A stock row that holds more already (an older
-- fixture's) fails the validation: correct it, then run `migrate up` again.
ALTER TABLE product_stock DROP CONSTRAINT IF EXISTS product_stock_on_hand_bound;
ALTER TABLE product_stock ADD CONSTRAINT product_stock_on_hand_bound CHECK (on_hand <= 1000000000000) NOT VALID;
--bun:split
ALTER TABLE product_stock VALIDATE CONSTRAINT product_stock_on_hand_bound;
--bun:split
ALTER TABLE carton_stock DROP CONSTRAINT IF EXISTS carton_stock_on_hand_bound;
ALTER TABLE carton_stock ADD CONSTRAINT carton_stock_on_hand_bound CHECK (on_hand <= 1000000000000) NOT VALID;
--bun:split
ALTER TABLE carton_stock VALIDATE CONSTRAINT carton_stock_on_hand_bound;
