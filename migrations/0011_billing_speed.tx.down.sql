DROP TABLE billing_catch_up;
-- The schema before 0011 marks billed charges: mark those of the finalized
-- periods.
UPDATE billing_charges c SET invoice_id = p.invoice_id
FROM billing_periods p
WHERE p.organization_id = c.organization_id AND p.status = 'finalized' AND c.invoice_id IS NULL
    AND c.occurred_at >= p.starts_at AND c.occurred_at < p.ends_at;
CREATE INDEX billing_charges_open_idx ON billing_charges (organization_id, occurred_at) WHERE invoice_id IS NULL;
DROP INDEX billing_charges_time_idx;
