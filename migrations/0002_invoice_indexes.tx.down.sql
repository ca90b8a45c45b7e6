ALTER TABLE invoices ALTER COLUMN search_text SET STATISTICS -1;
DROP STATISTICS IF EXISTS invoices_search_grams_stats;
DROP INDEX IF EXISTS invoices_search_grams_idx, invoices_search_trgm_idx,
    invoices_list_status_due_idx, invoices_list_status_updated_idx, invoices_list_status_created_idx,
    invoices_list_due_idx, invoices_list_updated_idx, invoices_list_created_idx;
DROP FUNCTION IF EXISTS invoice_search_grams(text);
