-- The warehouse's side (docs/warehouse.md): shipments are shipped, goods are
-- received, services are performed, and every change of on hand is a
-- movement of the stock ledger.

-- A shipment can be shipped: pending → shipped, with the carrier's tracking.
ALTER TABLE shipments DROP CONSTRAINT shipments_status_check;
ALTER TABLE shipments
    -- Not safe on a large shipments table: the check scans every shipment under the ALTER's
    -- ACCESS EXCLUSIVE lock (the intake waits).
    -- Applied already: docs/migrations.md, "Upgrading a large installation".
    -- squawk-ignore constraint-missing-not-valid
    ADD CONSTRAINT shipments_status_check CHECK (status IN ('draft', 'pending', 'shipped', 'cancelled')),
    ADD COLUMN shipped_at       timestamptz,
    ADD COLUMN tracking_carrier text,
    ADD COLUMN tracking_number  text,
    -- As above: a scan of every shipment under ACCESS EXCLUSIVE.
    -- Applied already: docs/migrations.md, "Upgrading a large installation".
    -- squawk-ignore constraint-missing-not-valid
    ADD CONSTRAINT shipments_shipped_check CHECK (
        (status = 'shipped') = (shipped_at IS NOT NULL)
        AND (shipped_at IS NULL) = (tracking_number IS NULL)
        AND (shipped_at IS NULL) = (tracking_carrier IS NULL)
        AND (tracking_number IS NULL OR length(tracking_number) BETWEEN 1 AND 64)
        AND (tracking_carrier IS NULL OR length(tracking_carrier) BETWEEN 1 AND 64));

-- The warehouse's queue: its submitted shipments by status, oldest first.
-- Not safe on a large shipments table: the build blocks writes to it until the
-- migration commits (the intake's shipment inserts wait).
-- Applied already; before such an upgrade: docs/migrations.md, "Upgrading a large installation".
-- squawk-ignore require-concurrent-index-creation
CREATE INDEX shipments_warehouse_queue_idx ON shipments (warehouse_id, status, submitted_at, id)
    WHERE submitted_at IS NOT NULL;

-- Goods received at a warehouse for an organization (an ASN or dock receipt).
-- The reference is the warehouse's idempotency key.
CREATE TABLE warehouse_receipts (
    id              text PRIMARY KEY CHECK (id ~ '^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$'),
    warehouse_id    text NOT NULL,
    organization_id text NOT NULL,
    reference       text NOT NULL CHECK (length(reference) BETWEEN 1 AND 64),
    received_at     timestamptz NOT NULL,
    -- whether the WMS gave receivedAt (part of the "same content" of a retry)
    received_at_given boolean NOT NULL,
    created_at      timestamptz NOT NULL,
    UNIQUE (warehouse_id, reference),
    UNIQUE (organization_id, id),
    FOREIGN KEY (organization_id, warehouse_id) REFERENCES warehouse_organizations (organization_id, warehouse_id)
);
CREATE INDEX warehouse_receipts_organization_idx ON warehouse_receipts (organization_id, received_at);

CREATE TABLE warehouse_receipt_lines (
    receipt_id      text NOT NULL REFERENCES warehouse_receipts (id) ON DELETE CASCADE,
    organization_id text NOT NULL,
    -- position: a line's place within one receipt; never near 2^31.
    -- squawk-ignore prefer-bigint-over-int
    position        integer NOT NULL CHECK (position >= 0),
    product_id      text,
    carton_id       text,
    quantity        bigint NOT NULL CHECK (quantity BETWEEN 1 AND 1000000000),
    PRIMARY KEY (receipt_id, position),
    CHECK ((product_id IS NULL) <> (carton_id IS NULL)),
    FOREIGN KEY (organization_id, product_id) REFERENCES products (organization_id, id),
    FOREIGN KEY (organization_id, carton_id) REFERENCES cartons (organization_id, id)
);

-- A service performed by the warehouse for an organization (kitting, labour
-- hours, special packaging). Quantities have up to three decimals: stored in
-- thousandths.
CREATE TABLE warehouse_services (
    id                 text PRIMARY KEY CHECK (id ~ '^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$'),
    warehouse_id       text NOT NULL,
    organization_id    text NOT NULL,
    reference          text NOT NULL CHECK (length(reference) BETWEEN 1 AND 64),
    service            text NOT NULL CHECK (length(service) BETWEEN 1 AND 64),
    quantity_milli     bigint NOT NULL CHECK (quantity_milli BETWEEN 1 AND 1000000000000),
    performed_at       timestamptz NOT NULL,
    performed_at_given boolean NOT NULL,
    note               text NOT NULL DEFAULT '',
    created_at         timestamptz NOT NULL,
    UNIQUE (warehouse_id, reference),
    UNIQUE (organization_id, id),
    FOREIGN KEY (organization_id, warehouse_id) REFERENCES warehouse_organizations (organization_id, warehouse_id)
);
CREATE INDEX warehouse_services_organization_idx ON warehouse_services (organization_id, performed_at);

-- The stock ledger: every change of on hand, with its time. product_stock and
-- carton_stock keep the current balance (what reads and reservations use);
-- their on_hand is always the sum of the item's movements at the warehouse,
-- so on hand at any past instant is the sum of the movements before it.
CREATE TABLE stock_movements (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    organization_id text NOT NULL REFERENCES organizations (id),
    warehouse_id    text NOT NULL REFERENCES warehouses (id),
    product_id      text,
    carton_id       text,
    quantity        bigint NOT NULL CHECK (quantity <> 0),
    reason          text NOT NULL CHECK (reason IN ('opening', 'receipt', 'shipment')),
    receipt_id      text REFERENCES warehouse_receipts (id),
    shipment_id     text REFERENCES shipments (id),
    occurred_at     timestamptz NOT NULL,
    CHECK ((product_id IS NULL) <> (carton_id IS NULL)),
    CHECK ((reason = 'receipt') = (receipt_id IS NOT NULL)),
    CHECK ((reason = 'shipment') = (shipment_id IS NOT NULL)),
    FOREIGN KEY (organization_id, product_id) REFERENCES products (organization_id, id),
    FOREIGN KEY (organization_id, carton_id) REFERENCES cartons (organization_id, id)
);
CREATE INDEX stock_movements_organization_time_idx ON stock_movements (organization_id, occurred_at);

-- The balances stored before the ledger existed become opening movements,
-- dated when this migration runs.
INSERT INTO stock_movements (organization_id, warehouse_id, product_id, quantity, reason, occurred_at)
SELECT p.organization_id, s.warehouse_id, s.product_id, s.on_hand, 'opening', now()
FROM product_stock s JOIN products p ON p.id = s.product_id
WHERE s.on_hand <> 0;
INSERT INTO stock_movements (organization_id, warehouse_id, carton_id, quantity, reason, occurred_at)
SELECT c.organization_id, s.warehouse_id, s.carton_id, s.on_hand, 'opening', now()
FROM carton_stock s JOIN cartons c ON c.id = s.carton_id
WHERE s.on_hand <> 0;
