-- The accumulating invoices' running totals (docs/billing.md, "Speed"):
-- the charges summed by organization, UTC day and invoice line, kept by
-- the database in the statement that inserts, deletes or updates charges,
-- so that they can never disagree with billing_charges. Finalizing a
-- period reads its whole UTC days here (a few rows per organization and
-- day) and only the charges of a partial day at either end (a period that
-- starts or ends at another instant than UTC midnight: a time zone other
-- than UTC, a close) from billing_charges, instead of every charge.
--
-- stripe spreads the totals of one line and day over rows by server
-- process (pg_backend_pid() % 16): concurrent transactions accruing the
-- same line (many ships of one organization at once) then rarely wait for
-- each other's row lock. A deletion subtracts in its own stripe, so one
-- row can be negative; the sum over the stripes is what counts, and a
-- line whose facts sum to 0 has no charge left.
CREATE TABLE billing_charge_days (
    organization_id text NOT NULL,
    day             date NOT NULL,
    fee             text NOT NULL,
    title           text NOT NULL,
    description     text NOT NULL,
    for_period      text NOT NULL,
    warehouse_id    text NOT NULL,
    unit_cost       bigint NOT NULL,
    -- divisor: 1 to 31, as billing_charges.divisor.
    -- squawk-ignore prefer-bigint-over-int
    divisor         integer NOT NULL,
    -- stripe: 0 to 15 (pg_backend_pid() % 16, above).
    -- squawk-ignore prefer-bigint-over-smallint
    stripe          smallint NOT NULL,
    quantity_milli  bigint NOT NULL,
    facts           bigint NOT NULL,
    PRIMARY KEY (organization_id, day, fee, title, description, for_period, warehouse_id, unit_cost, divisor, stripe)
);

-- One function for the three statement triggers: it subtracts the rows a
-- statement removed and adds those it added, each in one upsert whose
-- rows are locked in key order (no two statements deadlock on them).
CREATE FUNCTION billing_charge_days_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        INSERT INTO billing_charge_days AS d (organization_id, day, fee, title, description, for_period, warehouse_id,
            unit_cost, divisor, stripe, quantity_milli, facts)
        SELECT organization_id, (occurred_at AT TIME ZONE 'UTC')::date, fee, title, description, for_period, warehouse_id,
            unit_cost, divisor, pg_backend_pid() % 16, -sum(quantity_milli), -count(*)
        FROM removed GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9 ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, 9
        ON CONFLICT (organization_id, day, fee, title, description, for_period, warehouse_id, unit_cost, divisor, stripe)
        DO UPDATE SET quantity_milli = d.quantity_milli + EXCLUDED.quantity_milli, facts = d.facts + EXCLUDED.facts;
    END IF;
    IF TG_OP IN ('UPDATE', 'INSERT') THEN
        INSERT INTO billing_charge_days AS d (organization_id, day, fee, title, description, for_period, warehouse_id,
            unit_cost, divisor, stripe, quantity_milli, facts)
        SELECT organization_id, (occurred_at AT TIME ZONE 'UTC')::date, fee, title, description, for_period, warehouse_id,
            unit_cost, divisor, pg_backend_pid() % 16, sum(quantity_milli), count(*)
        FROM added GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9 ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, 9
        ON CONFLICT (organization_id, day, fee, title, description, for_period, warehouse_id, unit_cost, divisor, stripe)
        DO UPDATE SET quantity_milli = d.quantity_milli + EXCLUDED.quantity_milli, facts = d.facts + EXCLUDED.facts;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER billing_charge_days_insert AFTER INSERT ON billing_charges
    REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION billing_charge_days_apply();
CREATE TRIGGER billing_charge_days_update AFTER UPDATE ON billing_charges
    REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION billing_charge_days_apply();
CREATE TRIGGER billing_charge_days_delete AFTER DELETE ON billing_charges
    REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION billing_charge_days_apply();

CREATE FUNCTION billing_charge_days_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    TRUNCATE billing_charge_days;
    RETURN NULL;
END
$$;
CREATE TRIGGER billing_charge_days_truncate AFTER TRUNCATE ON billing_charges
    FOR EACH STATEMENT EXECUTE FUNCTION billing_charge_days_truncate();

-- The charges accrued so far.
INSERT INTO billing_charge_days (organization_id, day, fee, title, description, for_period, warehouse_id,
    unit_cost, divisor, stripe, quantity_milli, facts)
SELECT organization_id, (occurred_at AT TIME ZONE 'UTC')::date, fee, title, description, for_period, warehouse_id,
    unit_cost, divisor, 0, sum(quantity_milli), count(*)
FROM billing_charges GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9;
