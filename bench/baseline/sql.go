package main

import (
	"strings"
)

// The SQL of the service's invoice list without a search term and of its
// detail (adapters/postgres/invoicing/invoices.go), written out again: both servers
// ask PostgreSQL the same thing, with the same session setting
// (plan_cache_mode, in run), so that the benchmark compares the stacks
// around it. benchsql_test.go holds them to the service's, byte for byte.

// visibleInvoice restricts to the invoices an organization may see.
const visibleInvoice = `i.status IN ('unpaid', 'pending_payment', 'paid', 'cancelled', 'refunded', 'collecting') AND i.deleted_at IS NULL`

// pageSQL reads a page: {ids} selects the IDs, in {order}.
const pageSQL = `
SELECT i.id, i.key, i.status, i.name, i.notes, i.due_date, i.currency, i.total_amount, i.created_at, i.updated_at
FROM ({ids}) AS page JOIN invoices AS i ON i.id = page.id
ORDER BY {order}`

// The IDs of a page: $1 the organization, $2 the invoices to skip, $3 the
// status; at most maxTake + 1 rows.
const (
	idsSQL         = `SELECT i.id FROM invoices AS i WHERE i.organization_id = $1 AND ` + visibleInvoice + ` ORDER BY {order} OFFSET $2 LIMIT 11`
	idsOfStatusSQL = `SELECT i.id FROM invoices AS i WHERE i.organization_id = $1 AND ` + visibleInvoice + ` AND i.status = $3 ORDER BY {order} OFFSET $2 LIMIT 11`
)

// itemsSQL reads the items of a page's invoices ($1), grouped by invoice.
const itemsSQL = `SELECT it.invoice_id, it.id, it.title, it.description, it.quantity, it.unit_cost, it.total_cost
FROM invoice_items AS it WHERE it.invoice_id = ANY($1::text[]) ORDER BY it.invoice_id, it.position`

// detailSQL reads invoice $2 of organization $1: the invoice's columns on
// the first row, an item's on each later one, NULL the rest.
const detailSQL = `
SELECT i.id, i.key, i.status, i.name, i.notes, i.due_date, i.currency, i.total_amount, i.created_at, i.updated_at,
	NULL, NULL, NULL, NULL, NULL, NULL, NULL::integer AS position
FROM invoices AS i
WHERE i.organization_id = $1 AND i.id = $2 AND ` + visibleInvoice + `
UNION ALL
SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
	it.id, it.title, it.description, it.quantity, it.unit_cost, it.total_cost, it.position
FROM invoices AS i JOIN invoice_items AS it ON it.invoice_id = i.id
WHERE i.organization_id = $1 AND i.id = $2 AND ` + visibleInvoice + `
ORDER BY position NULLS FIRST`

// orders are the list's orders by sort column, descending then ascending.
var orders = map[string][2]string{
	"created_at": {"i.created_at DESC, i.id DESC", "i.created_at ASC, i.id ASC"},
	"updated_at": {"i.updated_at DESC, i.id DESC", "i.updated_at ASC, i.id ASC"},
	"due_date":   {"i.due_date DESC, i.id DESC", "i.due_date ASC, i.id ASC"},
}

// listSQL is the page statement of a list ordered by column, of one status
// when byStatus.
func listSQL(column string, ascending, byStatus bool) string {
	order := orders[column][0]
	if ascending {
		order = orders[column][1]
	}
	ids := idsSQL
	if byStatus {
		ids = idsOfStatusSQL
	}
	return strings.ReplaceAll(strings.Replace(pageSQL, "{ids}", ids, 1), "{order}", order)
}

// The order intake's two statements (adapters/postgres/intake/order_receipts.go),
// copies of the service's claimOrderSQL and acceptOrderSQL with
// receiptColumns written out; intake_test.go checks they are identical.

// claimOrderSQL claims the order's receipt and reads the products of the
// SKUs ($6) and the warehouse: the receipt's columns then product.id,
// product.sku, product.name, warehouse.id, warehouse.name, once per
// product found.
const claimOrderSQL = `WITH claimed AS (
	INSERT INTO order_receipts AS r
		(organization_id, order_id, order_number, status, attempts, trace_id, first_received_at, last_received_at)
	VALUES ($1, $2, $3, 'processing', 1, $4, $5, $5)
	ON CONFLICT (organization_id, order_id) DO UPDATE SET
		last_received_at = greatest(r.last_received_at, excluded.last_received_at),
		order_number     = coalesce(r.order_number, excluded.order_number),
		status           = CASE WHEN r.status = 'succeeded' THEN r.status ELSE 'processing' END,
		attempts         = CASE WHEN r.status = 'succeeded' THEN r.attempts ELSE r.attempts + 1 END,
		trace_id         = CASE WHEN r.status = 'succeeded' THEN r.trace_id ELSE excluded.trace_id END
	RETURNING organization_id, order_id, order_number, status, skipped, attempts, last_error,
	shipment_id, trace_id, first_received_at, last_received_at
), product AS (
	SELECT p.id, p.sku, p.name
	FROM unnest($6::text[]) AS s(sku)
	CROSS JOIN LATERAL (
		SELECT p.id, p.sku, p.name FROM products AS p WHERE p.organization_id = $1 AND p.sku = s.sku LIMIT 1
	) AS p
), warehouse AS (
	SELECT w.id, w.name FROM organizations AS o
	JOIN warehouses AS w ON w.id = o.default_warehouse_id AND w.active
	WHERE o.id = $1
	UNION ALL
	(SELECT w.id, w.name FROM warehouse_organizations AS wo
	JOIN warehouses AS w ON w.id = wo.warehouse_id AND w.active
	WHERE wo.organization_id = $1
	ORDER BY w.name, w.id
	LIMIT 1)
	LIMIT 1
)
SELECT claimed.*, product.id, product.sku, product.name, warehouse.id, warehouse.name
FROM claimed
LEFT JOIN product ON true
LEFT JOIN warehouse ON true`

// acceptOrderSQL reserves the stock of the items ($1 the warehouse, $2
// products, $3 quantities, $4 the organization), inserts the shipment ($5
// … $24 its other columns) and its items, and marks the receipt of order
// $26 succeeded, keeping last error $25.
const acceptOrderSQL = `WITH reserved AS (
	INSERT INTO product_stock AS s (organization_id, product_id, warehouse_id, on_hand, reserved)
	SELECT $4, v.id, $1, 0, sum(v.q) FROM unnest($2::text[], $3::bigint[]) AS v(id, q) GROUP BY v.id ORDER BY v.id
	ON CONFLICT (product_id, warehouse_id) DO UPDATE SET reserved = s.reserved + excluded.reserved
), new_shipment AS (
	INSERT INTO shipments (id, organization_id, kind, status, warehouse_id, shipping_name, shipping_company,
		shipping_address1, shipping_address2, shipping_city, shipping_state, shipping_zip, shipping_country,
		shipping_phone, notes, source_type, source_order_id, source_order_number, test, created_at, updated_at,
		submitted_at)
	VALUES ($5, $4, $6, $7, $1, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24)
), new_items AS (
	INSERT INTO shipment_items (organization_id, shipment_id, product_id, position, quantity)
	SELECT $4, $5, v.item_id, (v.position - 1)::int, v.quantity
	FROM unnest($2::text[], $3::bigint[]) WITH ORDINALITY AS v(item_id, quantity, position)
)
UPDATE order_receipts SET status = 'succeeded', skipped = NULL, last_error = $25, shipment_id = $5, payload = NULL
WHERE organization_id = $4 AND order_id = $26`
