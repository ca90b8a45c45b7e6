DROP STATISTICS invoices_search_grams_stats;
DROP INDEX invoices_search_grams_idx;
CREATE INDEX invoices_search_grams_idx ON invoices USING gin (invoice_search_grams(search_text)) WITH (gin_pending_list_limit = 256)
    WHERE deleted_at IS NULL AND status IN ('unpaid', 'pending_payment', 'paid', 'cancelled', 'refunded', 'collecting');
ALTER INDEX invoices_search_grams_idx ALTER COLUMN 1 SET STATISTICS 0;
CREATE STATISTICS invoices_search_grams_stats ON (invoice_search_grams(search_text)) FROM invoices;
