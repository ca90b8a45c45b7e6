-- Billing (docs/billing.md): rate cards, the charges accrued from the
-- warehouse's facts and from time, billing periods and the counter of
-- invoice keys. A finalized invoice is written into invoices and
-- invoice_items like any other.

-- An organization's prices from effective_from (a day in BILLING_TIMEZONE;
-- effective_at is its first instant there) until the next card's.
CREATE TABLE rate_cards (
    organization_id      text NOT NULL REFERENCES organizations (id),
    effective_from       date NOT NULL,
    effective_at         timestamptz NOT NULL,
    pick_pack_order      bigint NOT NULL DEFAULT 0 CHECK (pick_pack_order BETWEEN 0 AND 100000000000),
    pick_pack_unit       bigint NOT NULL DEFAULT 0 CHECK (pick_pack_unit BETWEEN 0 AND 100000000000),
    spd_carton           bigint NOT NULL DEFAULT 0 CHECK (spd_carton BETWEEN 0 AND 100000000000),
    receiving_unit       bigint NOT NULL DEFAULT 0 CHECK (receiving_unit BETWEEN 0 AND 100000000000),
    receiving_carton     bigint NOT NULL DEFAULT 0 CHECK (receiving_carton BETWEEN 0 AND 100000000000),
    storage_unit_month   bigint NOT NULL DEFAULT 0 CHECK (storage_unit_month BETWEEN 0 AND 100000000000),
    storage_carton_month bigint NOT NULL DEFAULT 0 CHECK (storage_carton_month BETWEEN 0 AND 100000000000),
    minimum_monthly      bigint NOT NULL DEFAULT 0 CHECK (minimum_monthly BETWEEN 0 AND 100000000000),
    -- {"kitting": {"title": "Kitting", "unitCost": 75}, ...}
    services             jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(services) = 'object'),
    created_at           timestamptz NOT NULL,
    PRIMARY KEY (organization_id, effective_at),
    UNIQUE (organization_id, effective_from)
);

-- An organization's billing periods: one open (accumulating, then draft
-- once ends_at has passed) and the finalized ones before it. invoice_id is
-- the ID its invoice gets when finalized (none when the period billed
-- nothing: invoice_key stays NULL).
CREATE TABLE billing_periods (
    organization_id text NOT NULL REFERENCES organizations (id),
    starts_at       timestamptz NOT NULL,
    ends_at         timestamptz NOT NULL CHECK (ends_at > starts_at),
    invoice_id      text NOT NULL UNIQUE,
    status          text NOT NULL CHECK (status IN ('open', 'finalized')),
    finalized_at    timestamptz,
    invoice_key     text,
    PRIMARY KEY (organization_id, starts_at),
    CHECK ((status = 'finalized') = (finalized_at IS NOT NULL)),
    CHECK (invoice_key IS NULL OR status = 'finalized')
);
-- One open period per organization: the guard of finalizing exactly once.
CREATE UNIQUE INDEX billing_periods_open_idx ON billing_periods (organization_id) WHERE status = 'open';
-- The periods due for finalization, oldest first.
CREATE INDEX billing_periods_due_idx ON billing_periods (ends_at, organization_id) WHERE status = 'open';

-- One charge per (fact, fee): the key that makes accrual exactly once.
-- source_id is the shipment, receipt or service ID, "<warehouse>@<day>"
-- for a day of storage, the operator's reference for an operator's charge.
-- quantity_milli ÷ divisor is the quantity in thousandths: divisor is 1,
-- or the days of the month for storage (quantity_milli is unit-days ×
-- 1000), so that an invoice line sums first and divides once.
CREATE TABLE billing_charges (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    organization_id text NOT NULL REFERENCES organizations (id),
    fee             text NOT NULL,
    source_id       text NOT NULL,
    warehouse_id    text NOT NULL DEFAULT '',
    title           text NOT NULL CHECK (btrim(title) <> ''),
    description     text NOT NULL DEFAULT '',
    -- an operator's charge dated into a closed period: that month's name
    for_period      text NOT NULL DEFAULT '',
    quantity_milli  bigint NOT NULL CHECK (quantity_milli >= 0),
    -- divisor: 1 to 31 by its check.
    -- squawk-ignore prefer-bigint-over-int
    divisor         integer NOT NULL DEFAULT 1 CHECK (divisor BETWEEN 1 AND 31),
    unit_cost       bigint NOT NULL,
    occurred_at     timestamptz NOT NULL,
    -- the invoice that billed it; NULL while its period is open
    invoice_id      text,
    UNIQUE (organization_id, fee, source_id)
);
CREATE INDEX billing_charges_open_idx ON billing_charges (organization_id, occurred_at) WHERE invoice_id IS NULL;

-- The last day whose storage an organization has accrued.
CREATE TABLE billing_storage (
    organization_id text PRIMARY KEY REFERENCES organizations (id),
    accrued_through date NOT NULL
);

-- The last invoice number given in a year: locked by the finalizing
-- transaction, so keys are gapless in finalization order.
CREATE TABLE billing_key_counters (
    -- year: a calendar year.
    -- squawk-ignore prefer-bigint-over-int
    year integer PRIMARY KEY,
    -- last: invoices numbered in one year; far below 2^31.
    -- squawk-ignore prefer-bigint-over-int
    last integer NOT NULL CHECK (last >= 0)
);

-- The highest stored key of a year, fixture invoices included, in one index probe.
-- Not safe on a large invoices table: the build blocks writes to it until the
-- migration commits.
-- Applied already; before such an upgrade: docs/migrations.md, "Upgrading a large installation".
-- squawk-ignore require-concurrent-index-creation
CREATE INDEX invoices_key_idx ON invoices ((key COLLATE "C"));

-- The shipped shipments of an organization by time: the catch-up of charges.
-- Not safe on a large shipments table: the build blocks writes to it until the
-- migration commits (the intake's shipment inserts wait).
-- Applied already; before such an upgrade: docs/migrations.md, "Upgrading a large installation".
-- squawk-ignore require-concurrent-index-creation
CREATE INDEX shipments_shipped_idx ON shipments (organization_id, shipped_at) WHERE status = 'shipped';

-- An operator's credit is a line with a negative unit cost (and total);
-- the invoice's total stays at or above zero.
ALTER TABLE invoice_items DROP CONSTRAINT invoice_items_unit_cost_check;
