package main

// The statements of gen, written against the schema of migrations/ (set
// based: a million rows are one INSERT … SELECT, not a million round trips).
// Their parameters: $1 the organization, $2 its tag, $3 a count, $4 its
// products. Pseudo-random choices are hashint8 of the row's number and a
// salt, so that the same arguments make the same rows.

const insertWarehousesSQL = `INSERT INTO warehouses (id, name, address_name, address_line1, address_city, address_state,
	address_country_code, address_postal_code, contact_name, contact_email, contact_phone_number)
VALUES ('wh_east', 'East Coast DC', 'East Coast DC', '100 Harbor Way', 'Newark', 'NJ', 'US', '07102', 'Dock office', 'east@acme3pl.example', '+1 973 555 0100'),
	('wh_west', 'West Coast DC', 'West Coast DC', '2200 Port Blvd', 'Reno', 'NV', 'US', '89502', 'Dock office', 'west@acme3pl.example', '+1 775 555 0100'),
	('wh_dallas', 'Dallas Crossdock', 'Dallas Crossdock', '45 Freight Rd', 'Dallas', 'TX', 'US', '75247', 'Dock office', 'dallas@acme3pl.example', '+1 214 555 0100'),
	('wh_midwest', 'Midwest Hub', 'Midwest Hub', '9 Prairie Ave', 'Columbus', 'OH', 'US', '43215', 'Dock office', 'midwest@acme3pl.example', '+1 614 555 0100')
ON CONFLICT (id) DO NOTHING`

const (
	insertOrganizationSQL = `INSERT INTO organizations (id, name) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING`
	// $2: the warehouses.
	insertWarehouseOrganizationsSQL = `INSERT INTO warehouse_organizations (organization_id, warehouse_id)
SELECT $1, w FROM unnest($2::text[]) w ON CONFLICT DO NOTHING`
	setDefaultWarehouseSQL = `UPDATE organizations SET default_warehouse_id = 'wh_east' WHERE id = $1 AND default_warehouse_id IS NULL`
	// $3: the number of products.
	insertProductsSQL = `INSERT INTO products (id, organization_id, sku, name)
SELECT format('prod_%s_%s', $2::text, p), $1, format('%s-%s', upper($2::text), lpad(p::text, 4, '0')),
	format('%s %s', (ARRAY['Tee', 'Hoodie', 'Cap', 'Socks', 'Mug', 'Bottle', 'Tote', 'Keyring', 'Pin', 'Card'])[1 + p % 10], p)
FROM generate_series(1, $3::int) p
ON CONFLICT DO NOTHING`
)

// The bench/invoices kind of bill, in SQL: invoices inv_TAG_0000001… from
// 2023-01-01 to now, 1 to 5 lines each, 70 % paid, 3 % deleted.
const (
	insertInvoiceItemsSQL = `INSERT INTO invoice_items (id, invoice_id, position, title, description, quantity, unit_cost, total_cost)
SELECT format('li_%s_%s_%s', $2::text, lpad(g::text, 7, '0'), p), format('inv_%s_%s', $2::text, lpad(g::text, 7, '0')), p,
	t.title, t.description, t.quantity, t.cost, round(t.quantity * t.cost)
FROM generate_series(1, $3::int) g
CROSS JOIN LATERAL generate_series(0, abs(hashint8(g * 16 + 1)) % 5) p
CROSS JOIN LATERAL (SELECT abs(hashint8(g * 64 + p * 8 + 2)) AS h) r
CROSS JOIN LATERAL (SELECT r.h % 10 AS kind,
	CASE WHEN r.h % 1000 = 0 THEN 'Anchorage, AK' ELSE (ARRAY['Newark, NJ', 'Reno, NV', 'Dallas, TX', 'Chicago, IL', 'Atlanta, GA',
		'Portland, OR', 'Denver, CO', 'Phoenix, AZ', 'Seattle, WA', 'Boston, MA', 'Miami, FL', 'Austin, TX', 'Columbus, OH',
		'Nashville, TN', 'Raleigh, NC'])[1 + (r.h / 7) % 15] END AS city,
	(ARRAY['Maria Garcia', 'James Smith', 'Wei Chen', 'Aisha Khan', 'Olga Petrova', 'Kenji Sato', 'Fatima Ali',
		'Liam O''Brien'])[1 + (r.h / 11) % 8] AS person) k
CROSS JOIN LATERAL (SELECT
	(ARRAY['Pallet storage', 'Bin storage', 'Pick & pack — first item', 'Additional item pick', 'Shipping label — UPS Ground',
		'Receiving — per carton', 'Returns processing', 'Kitting', 'Labour', 'Packaging materials'])[k.kind + 1] AS title,
	CASE k.kind
		WHEN 0 THEN format('%s pallets × %s days at %s', 1 + r.h % 40, 28 + r.h % 4,
			(ARRAY['East Coast DC', 'West Coast DC', 'Dallas Crossdock', 'Midwest Hub'])[1 + (r.h / 3) % 4])
		WHEN 2 THEN format('%s orders, e.g. order #%s to %s', 1 + r.h % 400, 1000000 + r.h % 9000000, k.city)
		WHEN 4 THEN format('Tracking 1Z%s to %s', upper(substr(md5(r.h::text), 1, 16)), k.city)
		WHEN 6 THEN format('RMA %s from %s, %s', 50000 + r.h % 900000, k.person, k.city)
		ELSE format('%s units, ref %s', 1 + r.h % 300, r.h % 100000) END AS description,
	(1 + r.h % 400)::numeric AS quantity,
	(ARRAY[25, 150, 225, 45, 650, 300, 350, 80, 3500, 60])[k.kind + 1] + r.h % 20 AS cost) t`

	insertInvoicesSQL = `INSERT INTO invoices (id, organization_id, key, status, name, notes, due_date, currency, total_amount,
	search_text, created_at, updated_at, deleted_at)
SELECT i.id, $1, i.key, i.status, i.name, i.notes, date_trunc('day', r.created) + interval '30 days', 'USD', s.total,
	lower(concat_ws(E'\n', i.id, i.key, i.name, i.notes, s.text)), r.created, i.updated, CASE WHEN r.h % 100 < 3 THEN i.updated END
FROM generate_series(1, $3::int) g
CROSS JOIN LATERAL (SELECT abs(hashint8(g * 16 + 3)) AS h,
	date_trunc('milliseconds', timestamptz '2023-01-01 00:00Z' + (now() - timestamptz '2023-01-01 00:00Z') * (g::float8 / $3::int)) AS created) r
CROSS JOIN LATERAL (SELECT format('inv_%s_%s', $2::text, lpad(g::text, 7, '0')) AS id,
	format('INV-%s-%s', extract(year FROM r.created AT TIME ZONE 'UTC')::int, lpad(g::text, 7, '0')) AS key,
	CASE WHEN r.h % 1000 < 700 THEN 'paid' WHEN r.h % 1000 < 800 THEN 'unpaid' WHEN r.h % 1000 < 850 THEN 'draft'
		WHEN r.h % 1000 < 880 THEN 'accumulating' WHEN r.h % 1000 < 920 THEN 'pending_payment' WHEN r.h % 1000 < 950 THEN 'cancelled'
		WHEN r.h % 1000 < 970 THEN 'refunded' ELSE 'collecting' END AS status,
	CASE WHEN (r.h / 1000) % 10 < 3 THEN to_char(r.created AT TIME ZONE 'UTC', 'FMMonth YYYY') || ' storage'
		WHEN (r.h / 1000) % 10 < 7 THEN 'Fulfillment fees — week ' || to_char(r.created AT TIME ZONE 'UTC', 'IW, IYYY')
		WHEN (r.h / 1000) % 10 = 7 THEN 'Inbound receiving — PO ' || lpad((r.h % 100000)::text, 5, '0')
		WHEN (r.h / 1000) % 10 = 8 THEN 'Returns — ' || to_char(r.created AT TIME ZONE 'UTC', 'FMMonth YYYY')
		ELSE format('Kitting project %s-%s', (ARRAY['HOLIDAY', 'BFCM', 'SPRING', 'LAUNCH'])[1 + r.h % 4], lpad((r.h % 1000)::text, 3, '0')) END AS name,
	CASE WHEN (r.h / 7) % 2 = 0 THEN (ARRAY['Net 30.', 'Net 15. Late fees apply after the due date.', 'Includes peak season surcharge.',
		'Payment by ACH; remittance to billing@acme3pl.example.', 'Disputed line credited on the next invoice.',
		'Thank you for your business!', 'Rates per the 2026 service agreement, schedule B.',
		'Storage billed on the highest daily pallet count.', 'Customer PO attached; questions to your account manager.'])[1 + (r.h / 13) % 9]
		ELSE '' END AS notes,
	least(now(), r.created + (r.h % 1440) * interval '1 hour') AS updated) i
JOIN (SELECT invoice_id, sum(total_cost) AS total, string_agg(title || E'\n' || description, E'\n' ORDER BY position) AS text
	FROM invoice_items WHERE invoice_id LIKE 'inv\_' || $2::text || '\_%' GROUP BY invoice_id) s ON s.invoice_id = i.id`
)

// Shipments shp_TAG_0000001… from 2023-01-01 to an hour ago, 1 to 3 lines
// each: those of the last three days pending (some drafts, some
// cancelled), the others shipped a day after (2.5 % cancelled); every one
// from a storefront order.
const (
	insertShipmentsSQL = `INSERT INTO shipments (id, organization_id, kind, status, warehouse_id, shipping_name, shipping_company,
	shipping_address1, shipping_address2, shipping_city, shipping_state, shipping_zip, shipping_country, shipping_phone, notes,
	source_type, source_order_id, source_order_number, test, created_at, updated_at, submitted_at, shipped_at, tracking_carrier, tracking_number)
SELECT r.id, $1, 'pick_pack', st.status,
	(ARRAY['wh_east', 'wh_east', 'wh_east', 'wh_east', 'wh_east', 'wh_west', 'wh_west', 'wh_west', 'wh_dallas', 'wh_midwest'])[1 + r.h % 10],
	(ARRAY['Maria Garcia', 'James Smith', 'Wei Chen', 'Aisha Khan', 'Olga Petrova', 'Kenji Sato', 'Fatima Ali', 'Liam O''Brien',
		'Sofia Rossi', 'Noah Müller', 'Zoë Dubois', 'Mateo López', 'Ava Johnson', 'Ethan Brown', 'Priya Patel'])[1 + (r.h / 10) % 15],
	'', format('%s %s', 1 + r.h % 9000, (ARRAY['Main St', 'Oak Ave', 'Maple Dr', 'Cedar Ln', 'Elm St', 'Pine Rd', 'Lake View Blvd'])[1 + (r.h / 150) % 7]), '',
	(ARRAY['Newark', 'Reno', 'Dallas', 'Chicago', 'Atlanta', 'Portland', 'Denver', 'Phoenix', 'Seattle', 'Boston', 'Miami', 'Austin'])[1 + (r.h / 1050) % 12],
	(ARRAY['NJ', 'NV', 'TX', 'IL', 'GA', 'OR', 'CO', 'AZ', 'WA', 'MA', 'FL', 'TX'])[1 + (r.h / 1050) % 12],
	(ARRAY['07102', '89502', '75201', '60601', '30303', '97201', '80202', '85004', '98101', '02108', '33130', '78701'])[1 + (r.h / 1050) % 12],
	'US', '+1 555 01' || lpad((r.h % 100)::text, 2, '0'), '',
	'storefront', 10000000 + g, 1000 + g, true, r.created,
	CASE st.status WHEN 'shipped' THEN r.created + interval '20 hours' WHEN 'cancelled' THEN r.created + interval '2 hours' ELSE r.created END,
	CASE WHEN st.status <> 'draft' THEN r.created + interval '1 minute' END,
	CASE WHEN st.status = 'shipped' THEN r.created + interval '20 hours' END,
	CASE WHEN st.status = 'shipped' THEN (ARRAY['UPS', 'FedEx', 'USPS', 'DHL'])[1 + (r.h / 7) % 4] END,
	CASE WHEN st.status = 'shipped' THEN '1Z' || upper(substr(md5(r.id), 1, 16)) END
FROM generate_series(1, $3::int) g
CROSS JOIN LATERAL (SELECT format('shp_%s_%s', $2::text, lpad(g::text, 7, '0')) AS id, abs(hashint8(g * 16 + 5)) AS h,
	date_trunc('milliseconds', timestamptz '2023-01-01 00:00Z' + (now() - interval '1 hour' - timestamptz '2023-01-01 00:00Z') * (g::float8 / $3::int)) AS created) r
CROSS JOIN LATERAL (SELECT CASE WHEN r.created > now() - interval '3 days' THEN
		CASE r.h % 20 WHEN 0 THEN 'draft' WHEN 1 THEN 'cancelled' ELSE 'pending' END
	ELSE CASE WHEN r.h % 40 = 0 THEN 'cancelled' ELSE 'shipped' END END AS status) st`

	// Three distinct products per shipment at most: (7919 g + 331 k) mod
	// $4 differs for k = 0, 1, 2 when $4 is 50 or 300.
	insertShipmentItemsSQL = `INSERT INTO shipment_items (organization_id, shipment_id, product_id, position, quantity)
SELECT $1, format('shp_%s_%s', $2::text, lpad(g::text, 7, '0')), format('prod_%s_%s', $2::text, (g::bigint * 7919 + k * 331) % $4::int + 1), k,
	1 + abs(hashint8(g * 16 + 6 + k)) % 3
FROM generate_series(1, $3::int) g, LATERAL generate_series(0, abs(hashint8(g * 16 + 4)) % 3) k`

	// The stock ledger: a shipped shipment's lines leave its warehouse.
	insertShipmentMovementsSQL = `INSERT INTO stock_movements (organization_id, warehouse_id, product_id, quantity, reason, shipment_id, occurred_at)
SELECT s.organization_id, s.warehouse_id, i.product_id, -i.quantity, 'shipment', s.id, s.shipped_at
FROM shipments s JOIN shipment_items i ON i.shipment_id = s.id
WHERE s.organization_id = $1 AND s.status = 'shipped'
ORDER BY s.shipped_at, s.id, i.position`

	// An opening balance of every product in every warehouse, and the
	// stock rows: on hand the sum of the ledger, reserved the pending
	// shipments' lines.
	insertOpeningMovementsSQL = `INSERT INTO stock_movements (organization_id, warehouse_id, product_id, quantity, reason, occurred_at)
SELECT p.organization_id, w.warehouse_id, p.id, 1000000, 'opening', timestamptz '2022-12-31 00:00Z'
FROM products p JOIN warehouse_organizations w ON w.organization_id = p.organization_id
WHERE p.organization_id = $1
ORDER BY p.id, w.warehouse_id`
	insertProductStockSQL = `WITH pending AS (SELECT s.warehouse_id, i.product_id, sum(i.quantity) AS q
	FROM shipments s JOIN shipment_items i ON i.shipment_id = s.id
	WHERE s.organization_id = $1 AND s.status = 'pending' GROUP BY 1, 2),
balance AS (SELECT warehouse_id, product_id, sum(quantity) AS q FROM stock_movements
	WHERE organization_id = $1 AND product_id IS NOT NULL GROUP BY 1, 2)
INSERT INTO product_stock (organization_id, product_id, warehouse_id, on_hand, reserved)
SELECT $1, b.product_id, b.warehouse_id, b.q, coalesce(p.q, 0) FROM balance b LEFT JOIN pending p USING (warehouse_id, product_id)`
)

// Billing of one organization: a card from eleven months back, which opened
// its first period; eleven finalized periods with their invoices (the lines
// summed from the charges, per fee and warehouse) and the open one; a
// charge per shipped shipment and fee since the card (as the ship path
// accrues them; billing_charge_days is kept by the table's triggers); the
// catch-up and storage watermarks of today, so that a preview catches up
// nothing old.
const (
	insertRateCardSQL = `INSERT INTO rate_cards (organization_id, effective_from, effective_at, pick_pack_order, pick_pack_unit,
	spd_carton, receiving_unit, receiving_carton, created_at)
SELECT $1, m::date, m AT TIME ZONE 'UTC', 250, 40, 400, 15, 120, now()
FROM (SELECT date_trunc('month', now() AT TIME ZONE 'UTC') - interval '11 months' AS m) x`

	insertPeriodsSQL = `INSERT INTO billing_periods (organization_id, starts_at, ends_at, invoice_id, status, finalized_at, invoice_key)
SELECT $1, m AT TIME ZONE 'UTC', (m + interval '1 month') AT TIME ZONE 'UTC', format('inv_%s_period_%s', replace($1::text, 'org_', ''), to_char(m, 'YYYYMM')),
	CASE WHEN m < c.cur THEN 'finalized' ELSE 'open' END,
	CASE WHEN m < c.cur THEN least((m + interval '1 month 3 days') AT TIME ZONE 'UTC', now()) END,
	CASE WHEN m < c.cur THEN format('INV-%s-%s', to_char(m, 'YYYY'), lpad((row_number() OVER (PARTITION BY to_char(m, 'YYYY') ORDER BY m))::text, 6, '0')) END
FROM (SELECT date_trunc('month', now() AT TIME ZONE 'UTC') AS cur) c,
	generate_series(c.cur - interval '11 months', c.cur, interval '1 month') m`

	insertChargesSQL = `INSERT INTO billing_charges (organization_id, fee, source_id, warehouse_id, title, for_period, quantity_milli, divisor, unit_cost, occurred_at)
SELECT s.organization_id, f.fee, s.id, s.warehouse_id, f.title, '', f.qty * 1000, 1, f.cost, s.shipped_at
FROM shipments s
CROSS JOIN LATERAL (SELECT sum(quantity) AS n FROM shipment_items i WHERE i.shipment_id = s.id) u
CROSS JOIN LATERAL (VALUES ('pick_pack_order', 'Pick & Pack orders', 1::bigint, 250::bigint),
	('pick_pack_unit', 'Pick & Pack additional units', u.n - 1, 40)) f(fee, title, qty, cost)
WHERE s.organization_id = $1 AND s.status = 'shipped' AND f.qty > 0
	AND s.shipped_at >= (SELECT min(starts_at) FROM billing_periods WHERE organization_id = $1)
ORDER BY s.shipped_at, s.id, f.fee`

	insertBilledItemsSQL = `INSERT INTO invoice_items (id, invoice_id, position, title, description, quantity, unit_cost, total_cost)
SELECT l.invoice_id || '_' || (l.n - 1), l.invoice_id, l.n - 1, l.title,
	CASE l.fee WHEN 'pick_pack_order' THEN format('%s: %s shipments', l.warehouse_id, l.facts) ELSE format('%s: %s units', l.warehouse_id, l.milli / 1000) END,
	l.milli / 1000.0, l.unit_cost, round(l.milli / 1000.0 * l.unit_cost)
FROM (SELECT p.invoice_id, c.fee, c.title, c.unit_cost, c.warehouse_id, sum(c.quantity_milli) AS milli, count(*) AS facts,
		row_number() OVER (PARTITION BY p.invoice_id ORDER BY c.fee, c.warehouse_id) AS n
	FROM billing_periods p
	JOIN billing_charges c ON c.organization_id = p.organization_id AND c.occurred_at >= p.starts_at AND c.occurred_at < p.ends_at
	WHERE p.organization_id = $1 AND p.status = 'finalized'
	GROUP BY 1, 2, 3, 4, 5) l`

	insertBilledInvoicesSQL = `INSERT INTO invoices (id, organization_id, key, status, name, notes, due_date, currency, total_amount,
	search_text, created_at, updated_at)
SELECT p.invoice_id, $1, p.invoice_key, CASE WHEN p.ends_at < now() - interval '45 days' THEN 'paid' ELSE 'unpaid' END, n.name, n.notes,
	p.finalized_at + interval '30 days', 'USD', t.total, lower(concat_ws(E'\n', p.invoice_id, p.invoice_key, n.name, n.notes, t.text)),
	p.finalized_at, p.finalized_at
FROM billing_periods p
CROSS JOIN LATERAL (SELECT 'Fulfillment, ' || to_char(p.starts_at AT TIME ZONE 'UTC', 'FMMonth YYYY') AS name,
	format('Payment terms: net 30 days (due %s).', to_char((p.finalized_at + interval '30 days') AT TIME ZONE 'UTC', 'YYYY-MM-DD')) AS notes) n
CROSS JOIN LATERAL (SELECT sum(total_cost) AS total, string_agg(title || E'\n' || description, E'\n' ORDER BY position) AS text
	FROM invoice_items WHERE invoice_id = p.invoice_id) t
WHERE p.organization_id = $1 AND p.status = 'finalized'`

	insertKeyCountersSQL = `INSERT INTO billing_key_counters AS k (year, last)
SELECT substr(invoice_key, 5, 4)::int, max(substr(invoice_key, 10)::int) FROM billing_periods
WHERE organization_id = $1 AND invoice_key IS NOT NULL GROUP BY 1
ON CONFLICT (year) DO UPDATE SET last = greatest(k.last, EXCLUDED.last)`
	insertCatchUpSQL = `INSERT INTO billing_catch_up (organization_id, starts_at, through)
SELECT $1, starts_at, now() FROM billing_periods WHERE organization_id = $1 AND status = 'open'`
	insertStorageWatermarkSQL = `INSERT INTO billing_storage (organization_id, accrued_through) VALUES ($1, (now() AT TIME ZONE 'UTC')::date - 1)`
)

// Order receipts: $2 failed ones over the last 30 days with the sample
// storefront order ($3) as their kept body, its ID replaced; and a
// succeeded one per shipment (every shipment came from a storefront order).
const (
	insertFailedReceiptsSQL = `INSERT INTO order_receipts (organization_id, order_id, order_number, status, attempts, last_error, trace_id,
	first_received_at, last_received_at, payload)
SELECT $1, 90000000 + g, 50000 + g, 'failed', 1 + r.h % 5,
	(ARRAY['unknown_skus', 'unknown_skus', 'unknown_skus', 'missing_sku', 'missing_shipping_address', 'no_warehouse', 'invalid_payload'])[1 + (r.h / 5) % 7],
	md5(g::text), r.at, r.at + (r.h % 5) * interval '1 hour', convert_to(replace($3::text, '5726128734520', (90000000 + g)::text), 'UTF8')
FROM generate_series(1, $2::int) g
CROSS JOIN LATERAL (SELECT abs(hashint8(g * 16 + 9)) AS h,
	date_trunc('milliseconds', now() - interval '6 hours' - interval '30 days' * (1 - g::float8 / ($2::int + 1))) AS at) r`

	insertSucceededReceiptsSQL = `INSERT INTO order_receipts (organization_id, order_id, order_number, status, attempts, shipment_id, trace_id,
	first_received_at, last_received_at)
SELECT s.organization_id, s.source_order_id, s.source_order_number, 'succeeded', 1, s.id, md5(s.id), s.created_at, s.created_at
FROM shipments s WHERE s.organization_id = $1 AND s.source_order_id IS NOT NULL`
)

// $1 audit records over the last year by eight operators, 60 % of them on
// the first organization of $2.
const insertAuditSQL = `INSERT INTO audit_records (id, at, actor_subject, actor_email, action, organization_id, input, outcome, trace_id)
SELECT format('aud_bench_%s', lpad(g::text, 7, '0')), date_trunc('milliseconds', now() - interval '365 days' * (1 - g::float8 / ($1::int + 1))),
	'oidc|' || a.n, a.n || '@acme3pl.example', x.action, o.org,
	jsonb_build_object('reference', 'REF-' || g, 'orderId', 90000000 + g % 3000), 
	CASE WHEN r.h % 50 = 0 THEN 'forbidden' WHEN r.h % 10 = 0 THEN 'unchanged' ELSE 'done' END, md5('aud' || g)
FROM generate_series(1, $1::int) g
CROSS JOIN LATERAL (SELECT abs(hashint8(g * 16 + 10)) AS h) r
CROSS JOIN LATERAL (SELECT (ARRAY['charges.add', 'billing.close', 'invoices.status', 'rates.set', 'orgs.limit', 'apikeys.create', 'apikeys.revoke',
	'orders.replay', 'orders.replay', 'orders.replay', 'shipments.cancel', 'charges.add'])[1 + r.h % 12] AS action) x
CROSS JOIN LATERAL (SELECT ($2::text[])[CASE WHEN (r.h / 12) % 10 < 6 THEN 1 ELSE 2 + (r.h / 120) % (cardinality($2::text[]) - 1) END] AS org) o
CROSS JOIN LATERAL (SELECT (ARRAY['alice', 'bob', 'carol', 'dave', 'erin', 'frank', 'grace', 'heidi'])[1 + (r.h / 1000) % 8] AS n) a
ORDER BY g`

// Twenty API keys per organization, a quarter revoked (the hash is of
// nothing: no key of these signs in).
//
//nolint:gosec // no credential: the hashes of no key, for the list of keys
const insertAPIKeysSQL = `INSERT INTO api_keys (id, organization_id, name, environment, prefix, hash, scopes, created_at, revoked_at)
SELECT format('key_%s_%s', $2::text, k), $1, format('Integration %s', k), 'sandbox', 'sk_test_' || substr(md5($2::text || k), 1, 8),
	decode(md5($1::text || k) || md5($1::text || k || 'x'), 'hex'), ARRAY['orders', 'invoices'],
	now() - k * interval '9 days', CASE WHEN k % 4 = 0 THEN now() - k * interval '3 days' END
FROM generate_series(1, 20) k`

// The outbox's backlog on the home page, and one organization's own limit.
const (
	insertOutboxSQL = `INSERT INTO event_outbox (event_id, type, subject, broker_subject, body, recorded_at)
SELECT 'evt_bench_' || g, 'shipment.shipped', 'org_big', 'fulfillment.org_big.shipment.shipped', '{}', now() - g * interval '1 second'
FROM generate_series(1, 2000) g`
	setLimitSQL = `UPDATE organizations SET rate_limit = '200/s', rate_limit_burst = 400 WHERE id = 'org_acme'`
)
