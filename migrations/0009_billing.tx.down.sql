DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM invoice_items WHERE unit_cost < 0) THEN
        RAISE EXCEPTION 'credit lines exist: the schema before 0009 cannot hold them';
    END IF;
END;
$$;
ALTER TABLE invoice_items ADD CONSTRAINT invoice_items_unit_cost_check CHECK (unit_cost >= 0);
DROP INDEX shipments_shipped_idx;
DROP INDEX invoices_key_idx;
DROP TABLE billing_key_counters;
DROP TABLE billing_storage;
DROP TABLE billing_charges;
DROP TABLE billing_periods;
DROP TABLE rate_cards;
