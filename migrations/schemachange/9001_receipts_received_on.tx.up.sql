-- A fixture of the cluster test (built into its upgraded image with the tag schemachange, never into
-- a release): the expand step of a real schema change on a table the intake writes. A nullable
-- column without a default is a catalog change, quick at any size; the old release's inserts name
-- their columns and leave it NULL.
ALTER TABLE order_receipts ADD COLUMN IF NOT EXISTS received_on date;
