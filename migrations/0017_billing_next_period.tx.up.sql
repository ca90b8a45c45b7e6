-- A period may be opened ahead: during the grace of an organization's open
-- period (ended, not finalized yet), the next month is open too, as
-- 'next', so that its invoice has its ID while it accumulates; it becomes
-- the open period when the first is finalized (docs/billing.md, "Periods
-- and the invoice's life").
--
-- NOT VALID, and not validated: the check it replaces held every existing
-- row to a subset of it ('open', 'finalized'), and new rows are checked;
-- validating would only read the table under its lock.
ALTER TABLE billing_periods DROP CONSTRAINT billing_periods_status_check;
ALTER TABLE billing_periods ADD CONSTRAINT billing_periods_status_check
    CHECK (status IN ('open', 'next', 'finalized')) NOT VALID;
