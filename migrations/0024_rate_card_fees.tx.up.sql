-- A rate card's fees as rows (docs/billing.md, "A new fee"): one row per
-- (card, fee) with its price in cents, so that a fee added to the tariff
-- (domain/billing/tariff.go) needs no migration. A fee a card has no row
-- of is 0.
--
-- Expand, then contract (docs/migrations.md): the previous release reads
-- and writes the fee columns of rate_cards, so they stay, and this
-- release keeps them in step both ways until a later release drops them
-- with the trigger below: it writes the columns of the fees that have one
-- beside the rows, and the trigger copies a card written through the
-- columns alone (by the previous release, during the upgrade or after a
-- rollback) into the rows.
--
-- rate_cards holds a few cards per organization (an operator sets them),
-- so the copy of the existing cards below is quick at any installation's
-- size; it holds no lock the intake or the ship path needs (they only
-- read rate_cards, which the trigger's SHARE ROW EXCLUSIVE lock allows).
CREATE TABLE rate_card_fees (
    organization_id text NOT NULL,
    effective_from  date NOT NULL,
    fee             text NOT NULL CHECK (fee <> ''),
    cents           bigint NOT NULL CHECK (cents BETWEEN 0 AND 100000000000),
    PRIMARY KEY (organization_id, effective_from, fee),
    FOREIGN KEY (organization_id, effective_from) REFERENCES rate_cards (organization_id, effective_from) ON DELETE CASCADE
);

-- The fees of a card written through the columns, as rows.
CREATE FUNCTION rate_card_fees_from_columns() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO rate_card_fees (organization_id, effective_from, fee, cents)
    SELECT NEW.organization_id, NEW.effective_from, f.fee, f.cents
    FROM (VALUES ('pick_pack_order', NEW.pick_pack_order), ('pick_pack_unit', NEW.pick_pack_unit),
        ('spd_carton', NEW.spd_carton), ('receiving_unit', NEW.receiving_unit),
        ('receiving_carton', NEW.receiving_carton), ('storage_unit_month', NEW.storage_unit_month),
        ('storage_carton_month', NEW.storage_carton_month), ('minimum_monthly', NEW.minimum_monthly)) AS f (fee, cents)
    ON CONFLICT (organization_id, effective_from, fee) DO UPDATE SET cents = EXCLUDED.cents;
    RETURN NULL;
END;
$$;
CREATE TRIGGER rate_card_fees_from_columns AFTER INSERT OR UPDATE ON rate_cards
    FOR EACH ROW EXECUTE FUNCTION rate_card_fees_from_columns();

INSERT INTO rate_card_fees (organization_id, effective_from, fee, cents)
SELECT rc.organization_id, rc.effective_from, f.fee, f.cents
FROM rate_cards AS rc
CROSS JOIN LATERAL (VALUES ('pick_pack_order', rc.pick_pack_order), ('pick_pack_unit', rc.pick_pack_unit),
    ('spd_carton', rc.spd_carton), ('receiving_unit', rc.receiving_unit),
    ('receiving_carton', rc.receiving_carton), ('storage_unit_month', rc.storage_unit_month),
    ('storage_carton_month', rc.storage_carton_month), ('minimum_monthly', rc.minimum_monthly)) AS f (fee, cents);
