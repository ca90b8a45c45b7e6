-- Rolling back forgets the organizations' own limits: every organization
-- has the default again.
SET LOCAL lock_timeout = '5s';
SET LOCAL statement_timeout = '30s';
-- squawk-ignore ban-drop-column
ALTER TABLE organizations DROP COLUMN IF EXISTS rate_limit_burst, DROP COLUMN IF EXISTS rate_limit;
