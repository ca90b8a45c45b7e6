-- Billing at scale (docs/billing.md, "Speed"): a charge belongs to the
-- period that holds its time, so finalizing a period no longer marks its
-- charges; "billed" is the period's status. The open charges are found by
-- (organization, time) over all charges, not only the unmarked ones.
-- Not safe on a large billing_charges table: the build blocks writes to it until the
-- migration commits.
-- Applied already; before such an upgrade: docs/migrations.md, "Upgrading a large installation".
-- squawk-ignore require-concurrent-index-creation
CREATE INDEX billing_charges_time_idx ON billing_charges (organization_id, occurred_at);
-- Brief in itself, but inside the transaction it holds ACCESS EXCLUSIVE on billing_charges
-- until the build above and the update below commit.
-- Applied already: docs/migrations.md, "Upgrading a large installation".
-- squawk-ignore require-concurrent-index-deletion
DROP INDEX billing_charges_open_idx;
-- An operator's charge dated into a closed period, still open, goes on the
-- open invoice: it is dated the open period's start.
UPDATE billing_charges c SET occurred_at = p.starts_at
FROM billing_periods p
WHERE p.organization_id = c.organization_id AND p.status = 'open' AND c.invoice_id IS NULL AND c.occurred_at < p.starts_at;

-- The catch-up's watermark per organization, for its open period from
-- starts_at: the facts dated before `through` were looked at already.
CREATE TABLE billing_catch_up (
    organization_id text PRIMARY KEY REFERENCES organizations (id),
    starts_at       timestamptz NOT NULL,
    through         timestamptz NOT NULL
);
