-- Billing's state of an organization beyond its periods (docs/billing.md):
-- when `billing close` off-boarded it (no period after that bills a
-- minimum until a card with a later effectiveFrom) and the credit its last
-- invoice carried forward (brought forward by its next invoice that has
-- charges). A new table, empty until billing writes it: nothing to lock
-- or rewrite.
CREATE TABLE billing_accounts (
    organization_id text PRIMARY KEY REFERENCES organizations (id),
    offboarded_at   timestamptz,
    credit_forward  bigint NOT NULL DEFAULT 0 CHECK (credit_forward >= 0)
);
