-- The whole schema. Constraints make bad data impossible:
-- foreign keys (records of one organization only refer to that organization's
-- records), unique SKUs per organization, one receipt per organization and
-- storefront order, and checks on money and counts.

CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TABLE organizations (
    id                   text PRIMARY KEY CHECK (id ~ '^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$'),
    name                 text NOT NULL CHECK (btrim(name) <> ''),
    default_warehouse_id text,
    created_at           timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE warehouses (
    id                   text PRIMARY KEY CHECK (id ~ '^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$'),
    name                 text NOT NULL CHECK (btrim(name) <> ''),
    description          text,
    active               boolean NOT NULL DEFAULT true,
    address_name         text NOT NULL,
    address_line1        text NOT NULL,
    address_line2        text NOT NULL DEFAULT '',
    address_district     text NOT NULL DEFAULT '',
    address_city         text NOT NULL,
    address_state        text NOT NULL,
    address_country_code text NOT NULL CHECK (address_country_code ~ '^[A-Z]{2}$'),
    address_postal_code  text NOT NULL,
    contact_name         text NOT NULL,
    contact_email        text NOT NULL,
    contact_phone_number text NOT NULL,
    contact_fax          text NOT NULL DEFAULT '',
    tags                 text[] NOT NULL DEFAULT '{}' CHECK (array_position(tags, NULL) IS NULL),
    created_at           timestamptz NOT NULL DEFAULT now()
);

-- Which warehouses an organization may use.
CREATE TABLE warehouse_organizations (
    organization_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    warehouse_id    text NOT NULL REFERENCES warehouses (id) ON DELETE CASCADE,
    PRIMARY KEY (organization_id, warehouse_id)
);
CREATE INDEX warehouse_organizations_warehouse_idx ON warehouse_organizations (warehouse_id);

-- The default warehouse must be one the organization may use. Deferred, so
-- an organization and its warehouses can be written in one transaction in
-- any order.
ALTER TABLE organizations
    ADD CONSTRAINT organizations_default_warehouse_fk
    FOREIGN KEY (id, default_warehouse_id) REFERENCES warehouse_organizations (organization_id, warehouse_id)
    DEFERRABLE INITIALLY DEFERRED;

CREATE TABLE products (
    id              text PRIMARY KEY CHECK (id ~ '^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$'),
    organization_id text NOT NULL REFERENCES organizations (id),
    sku             text NOT NULL CHECK (sku <> '' AND sku = btrim(sku) AND length(sku) <= 255),
    name            text NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    UNIQUE (organization_id, sku),
    UNIQUE (organization_id, id)
);

CREATE TABLE cartons (
    id              text PRIMARY KEY CHECK (id ~ '^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$'),
    organization_id text NOT NULL REFERENCES organizations (id),
    sku             text NOT NULL CHECK (sku <> '' AND sku = btrim(sku) AND length(sku) <= 255),
    name            text NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    UNIQUE (organization_id, sku),
    UNIQUE (organization_id, id)
);

-- Stock per warehouse. reserved counts what pending shipments hold; for
-- cartons it can never exceed what is on hand (SPD submission checks it).
CREATE TABLE product_stock (
    product_id   text NOT NULL REFERENCES products (id),
    warehouse_id text NOT NULL REFERENCES warehouses (id),
    on_hand      bigint NOT NULL CHECK (on_hand >= 0),
    reserved     bigint NOT NULL DEFAULT 0 CHECK (reserved >= 0),
    PRIMARY KEY (product_id, warehouse_id)
);

CREATE TABLE carton_stock (
    carton_id    text NOT NULL REFERENCES cartons (id),
    warehouse_id text NOT NULL REFERENCES warehouses (id),
    on_hand      bigint NOT NULL CHECK (on_hand >= 0),
    reserved     bigint NOT NULL DEFAULT 0 CHECK (reserved >= 0 AND reserved <= on_hand),
    PRIMARY KEY (carton_id, warehouse_id)
);

CREATE TABLE invoices (
    id              text PRIMARY KEY CHECK (id ~ '^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$'),
    organization_id text NOT NULL REFERENCES organizations (id),
    key             text NOT NULL CHECK (btrim(key) <> ''),
    status          text NOT NULL CHECK (status IN ('draft', 'accumulating', 'unpaid', 'pending_payment',
                                                    'paid', 'cancelled', 'refunded', 'collecting')),
    name            text NOT NULL,
    notes           text NOT NULL DEFAULT '',
    due_date        timestamptz NOT NULL,
    currency        text NOT NULL CHECK (currency = 'USD'),
    total_amount    bigint NOT NULL CHECK (total_amount >= 0),
    -- lower-cased ID, key, name, notes and every item's title and
    -- description, written with the invoice: one trigram-indexed text that
    -- answers the invoice search (docs/invoices.md).
    search_text     text NOT NULL,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL CHECK (updated_at >= created_at),
    deleted_at      timestamptz,
    UNIQUE (organization_id, key),
    UNIQUE (organization_id, id)
);

CREATE TABLE invoice_items (
    id          text PRIMARY KEY CHECK (id ~ '^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$'),
    invoice_id  text NOT NULL REFERENCES invoices (id) ON DELETE CASCADE,
    -- position: a line's place within one invoice (at most thousands); never near 2^31.
    -- squawk-ignore prefer-bigint-over-int
    position    integer NOT NULL CHECK (position >= 0),
    title       text NOT NULL,
    description text NOT NULL,
    quantity    numeric(22, 3) NOT NULL CHECK (quantity >= 0),
    unit_cost   bigint NOT NULL CHECK (unit_cost >= 0),
    -- round() on numeric rounds half away from zero, as docs/invoices.md says.
    total_cost  bigint NOT NULL CHECK (total_cost = round(quantity * unit_cost)),
    UNIQUE (invoice_id, position)
);

-- totalAmount = Σ totalCost, checked at commit for every invoice touched.
CREATE FUNCTION invoices_check_total() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    inv_id text;
    stored bigint;
    summed numeric;
BEGIN
    IF TG_TABLE_NAME = 'invoices' THEN
        inv_id := NEW.id;
    ELSIF TG_OP = 'DELETE' THEN
        inv_id := OLD.invoice_id;
    ELSE
        inv_id := NEW.invoice_id;
    END IF;
    SELECT total_amount INTO stored FROM invoices WHERE id = inv_id;
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;
    SELECT coalesce(sum(total_cost), 0) INTO summed FROM invoice_items WHERE invoice_id = inv_id;
    IF summed <> stored THEN
        RAISE EXCEPTION 'invoice % total_amount % differs from the sum of its items %', inv_id, stored, summed
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END;
$$;

CREATE CONSTRAINT TRIGGER invoices_total_check
    AFTER INSERT OR UPDATE OF total_amount ON invoices
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION invoices_check_total();
CREATE CONSTRAINT TRIGGER invoice_items_total_check
    AFTER INSERT OR UPDATE OR DELETE ON invoice_items
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION invoices_check_total();

CREATE TABLE api_keys (
    id              text PRIMARY KEY CHECK (id ~ '^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$'),
    organization_id text NOT NULL REFERENCES organizations (id),
    name            text NOT NULL DEFAULT '',
    environment     text NOT NULL CHECK (environment IN ('sandbox', 'production')),
    prefix          text NOT NULL,
    hash            bytea NOT NULL UNIQUE CHECK (length(hash) = 32),
    scopes          text[] NOT NULL CHECK (array_position(scopes, NULL) IS NULL),
    created_at      timestamptz NOT NULL DEFAULT now(),
    revoked_at      timestamptz
);
CREATE INDEX api_keys_organization_idx ON api_keys (organization_id, created_at);

CREATE TABLE webhook_secrets (
    organization_id text PRIMARY KEY REFERENCES organizations (id),
    secret          text NOT NULL CHECK (length(secret) >= 16)
);

CREATE TABLE shipments (
    id                  text PRIMARY KEY CHECK (id ~ '^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$'),
    organization_id     text NOT NULL REFERENCES organizations (id),
    kind                text NOT NULL CHECK (kind IN ('pick_pack', 'spd')),
    status              text NOT NULL CHECK (status IN ('draft', 'pending', 'cancelled')),
    warehouse_id        text NOT NULL,
    shipping_name       text NOT NULL DEFAULT '',
    shipping_company    text NOT NULL DEFAULT '',
    shipping_address1   text NOT NULL DEFAULT '',
    shipping_address2   text NOT NULL DEFAULT '',
    shipping_city       text NOT NULL DEFAULT '',
    shipping_state      text NOT NULL DEFAULT '',
    shipping_zip        text NOT NULL DEFAULT '',
    shipping_country    text NOT NULL DEFAULT '',
    shipping_phone      text NOT NULL DEFAULT '',
    notes               text NOT NULL DEFAULT '',
    source_type         text CHECK (source_type IN ('storefront')),
    source_order_id     bigint CHECK (source_order_id > 0),
    source_order_number bigint,
    test                boolean NOT NULL,
    created_at          timestamptz NOT NULL,
    updated_at          timestamptz NOT NULL,
    submitted_at        timestamptz,
    CHECK ((source_type IS NULL) = (source_order_id IS NULL)),
    CHECK ((status = 'draft') = (submitted_at IS NULL) OR status = 'cancelled'),
    UNIQUE (organization_id, id),
    -- a shipment only ever uses a warehouse its organization may use
    FOREIGN KEY (organization_id, warehouse_id) REFERENCES warehouse_organizations (organization_id, warehouse_id)
);
CREATE INDEX shipments_organization_created_idx ON shipments (organization_id, created_at DESC, id DESC);

CREATE TABLE shipment_items (
    organization_id text NOT NULL,
    shipment_id     text NOT NULL,
    product_id      text NOT NULL,
    -- position: a line's place within one shipment (bounded by the order's lines); never near 2^31.
    -- squawk-ignore prefer-bigint-over-int
    position        integer NOT NULL CHECK (position >= 0),
    quantity        bigint NOT NULL CHECK (quantity > 0),
    PRIMARY KEY (shipment_id, product_id),
    FOREIGN KEY (organization_id, shipment_id) REFERENCES shipments (organization_id, id) ON DELETE CASCADE,
    FOREIGN KEY (organization_id, product_id) REFERENCES products (organization_id, id)
);

CREATE TABLE shipment_cartons (
    organization_id text NOT NULL,
    shipment_id     text NOT NULL,
    carton_id       text NOT NULL,
    -- position: a carton's place within one shipment; never near 2^31.
    -- squawk-ignore prefer-bigint-over-int
    position        integer NOT NULL CHECK (position >= 0),
    quantity        bigint NOT NULL CHECK (quantity > 0),
    PRIMARY KEY (shipment_id, carton_id),
    FOREIGN KEY (organization_id, shipment_id) REFERENCES shipments (organization_id, id) ON DELETE CASCADE,
    FOREIGN KEY (organization_id, carton_id) REFERENCES cartons (organization_id, id)
);

-- One receipt per organization and storefront order: the idempotency fact of
-- the order intake.
CREATE TABLE order_receipts (
    organization_id   text NOT NULL REFERENCES organizations (id),
    order_id          bigint NOT NULL CHECK (order_id > 0),
    order_number      bigint,
    status            text NOT NULL CHECK (status IN ('processing', 'succeeded', 'failed')),
    skipped           text CHECK (skipped IN ('no_shippable_items', 'order_cancelled')),
    -- attempts: deliveries of one order by its storefront (a few retries); never near 2^31.
    -- squawk-ignore prefer-bigint-over-int
    attempts          integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    last_error        text,
    shipment_id       text,
    trace_id          text NOT NULL DEFAULT '',
    first_received_at timestamptz NOT NULL,
    last_received_at  timestamptz NOT NULL,
    PRIMARY KEY (organization_id, order_id),
    FOREIGN KEY (organization_id, shipment_id) REFERENCES shipments (organization_id, id),
    CHECK (status <> 'succeeded' OR (shipment_id IS NOT NULL) <> (skipped IS NOT NULL))
);
