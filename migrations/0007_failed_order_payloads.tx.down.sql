DROP INDEX order_receipts_kept_idx;
ALTER TABLE order_receipts
    DROP CONSTRAINT order_receipts_payload_failed,
    DROP COLUMN payload;
