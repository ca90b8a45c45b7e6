DELETE FROM billing_periods WHERE status = 'next';
ALTER TABLE billing_periods DROP CONSTRAINT billing_periods_status_check;
ALTER TABLE billing_periods ADD CONSTRAINT billing_periods_status_check
    CHECK (status IN ('open', 'finalized')) NOT VALID;
