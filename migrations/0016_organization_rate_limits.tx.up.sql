-- An organization's own rate limit (docs/rate-limits.md): the rate as
-- written ("50/s") and its burst; NULL for the default of RATE_LIMIT and
-- RATE_LIMIT_BURST. Nullable columns without a default: no table rewrite,
-- only a brief ACCESS EXCLUSIVE lock, bounded below so that the migration
-- gives up instead of queueing every request behind it.
SET LOCAL lock_timeout = '5s';
SET LOCAL statement_timeout = '30s';
ALTER TABLE organizations
    ADD COLUMN IF NOT EXISTS rate_limit text,
    ADD COLUMN IF NOT EXISTS rate_limit_burst bigint;
