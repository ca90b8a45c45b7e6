DROP INDEX IF EXISTS invoices_search_fill_trgm_idx;
ALTER TABLE invoices DROP COLUMN IF EXISTS search_fill;
CREATE INDEX IF NOT EXISTS invoices_search_trgm_idx ON invoices USING gin (search_text gin_trgm_ops) WITH (gin_pending_list_limit = 256)
    WHERE deleted_at IS NULL AND status IN ('unpaid', 'pending_payment', 'paid', 'cancelled', 'refunded', 'collecting');
