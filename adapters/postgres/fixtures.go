package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"time"

	"github.com/uptrace/bun"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/invoicing"
	"github.com/acme3pl/fulfillment/domain/shipping"
	fixtureports "github.com/acme3pl/fulfillment/ports/fixture"
)

// FixtureStore implements fixtureports.Store. Every insert is
// ON CONFLICT DO NOTHING: a record whose key exists is left as it is, so a
// second load of the same document changes nothing. Rows travel as one
// array parameter per column, batchSize rows per statement; warehouses and
// API keys, with array columns of their own, one row per statement.
type FixtureStore struct{ run runner }

var _ fixtureports.Store = (*FixtureStore)(nil)

// batchSize bounds the rows of one INSERT statement.
const batchSize = 1000

const (
	insertOrganizationsSQL sqlInsert = `INSERT INTO organizations (id, name, default_warehouse_id)
SELECT v.id, v.name, nullif(v.warehouse, '') FROM unnest($1::text[], $2::text[], $3::text[]) AS v(id, name, warehouse)
ON CONFLICT (id) DO NOTHING`

	// setFixtureRateLimitsSQL gives the fixture's organizations their own
	// rate limits (migration 0016), unless one is set already: seeding
	// again changes nothing, and never undoes an operator's `orgs limit`.
	setFixtureRateLimitsSQL sqlUpdate = `UPDATE organizations o SET rate_limit = v.rate_limit, rate_limit_burst = v.burst
FROM unnest($1::text[], $2::text[], $3::bigint[]) AS v(id, rate_limit, burst)
WHERE o.id = v.id AND o.rate_limit IS NULL`

	insertWarehouseSQL sqlInsert = `INSERT INTO warehouses (id, name, description, active, address_name, address_line1, address_line2,
	address_district, address_city, address_state, address_country_code, address_postal_code,
	contact_name, contact_email, contact_phone_number, contact_fax, tags)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17::text[])
ON CONFLICT (id) DO NOTHING`

	insertWarehouseOrganizationsSQL sqlInsert = `INSERT INTO warehouse_organizations (organization_id, warehouse_id)
SELECT * FROM unnest($1::text[], $2::text[]) ON CONFLICT (organization_id, warehouse_id) DO NOTHING`

	insertAPIKeySQL sqlInsert = createAPIKeySQL + ` ON CONFLICT (id) DO NOTHING`

	//nolint:gosec // SQL text, not a credential
	insertWebhookSecretsSQL sqlInsert = `INSERT INTO webhook_secrets (organization_id, secret)
SELECT * FROM unnest($1::text[], $2::text[]) ON CONFLICT (organization_id) DO NOTHING`

	// Times travel as text (RFC 3339), a deleted_at that is not set as "".
	insertInvoicesSQL sqlInsert = `INSERT INTO invoices (id, organization_id, key, status, name, notes, due_date, currency,
	total_amount, search_text, created_at, updated_at, deleted_at)
SELECT v.id, v.org, v.key, v.status, v.name, v.notes, v.due::timestamptz, v.currency,
	v.total, v.search, v.created::timestamptz, v.updated::timestamptz, nullif(v.deleted, '')::timestamptz
FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
	$9::bigint[], $10::text[], $11::text[], $12::text[], $13::text[])
	AS v(id, org, key, status, name, notes, due, currency, total, search, created, updated, deleted)
ON CONFLICT (id) DO NOTHING
RETURNING id`

	insertInvoiceItemsSQL sqlInsert = `INSERT INTO invoice_items (id, invoice_id, position, title, description, quantity, unit_cost, total_cost)
SELECT v.id, v.invoice, v.position, v.title, v.description, v.quantity::numeric, v.unit_cost, v.total_cost
FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::bigint[])
	AS v(id, invoice, position, title, description, quantity, unit_cost, total_cost)
ON CONFLICT (id) DO NOTHING`
)

// insertItemsSQL and insertStockSQL insert products or cartons and their
// stock.
func insertItemsSQL(kind shipping.ItemKind) sqlInsert {
	return sqlInsert(`INSERT INTO ` + inventoryTable(kind) + ` (id, organization_id, sku, name)
SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) ON CONFLICT (id) DO NOTHING`)
}

// insertStockSQL inserts stock rows ($1 items, $2 warehouses, $3 on hand)
// with their items' organization (none, for an unknown item: the NOT NULL
// refuses it), each an opening balance: a movement of the stock ledger
// (movementsCTE) dated $4 (when the seed runs; NULL: the transaction's
// time), so that on hand stays the sum of its movements. A row whose
// balance exists already is left as it is, with no movement, so a second
// load adds none. It returns how many balances it inserted.
func insertStockSQL(kind shipping.ItemKind) sqlSelect {
	table, column := stockTable(kind)
	product, carton := "b.item", "NULL::text"
	if kind == shipping.KindCarton {
		product, carton = carton, product
	}
	return sqlSelect(`WITH balance AS (
	INSERT INTO ` + table + ` (organization_id, ` + column + `, warehouse_id, on_hand)
	SELECT i.organization_id, v.item, v.warehouse, v.on_hand
	FROM unnest($1::text[], $2::text[], $3::bigint[]) AS v(item, warehouse, on_hand)
	LEFT JOIN ` + inventoryTable(kind) + ` AS i ON i.id = v.item
	ON CONFLICT DO NOTHING
	RETURNING organization_id, ` + column + ` AS item, warehouse_id, on_hand
), moves AS (
	SELECT b.organization_id, b.warehouse_id, ` + product + ` AS product_id, ` + carton + ` AS carton_id,
		b.on_hand AS quantity, 'opening' AS reason, NULL::text AS receipt_id, NULL::text AS shipment_id,
		coalesce($4::timestamptz, now()) AS occurred_at
	FROM balance AS b
	WHERE b.on_hand <> 0
), ` + movementsCTE + `
SELECT count(*) FROM balance`)
}

// Load writes f and counts the records it inserted.
func (s *FixtureStore) Load(ctx context.Context, f fixtureports.Fixture) (fixtureports.Counts, error) {
	counts := fixtureports.Counts{}
	var err error
	if counts["organizations"], err = inserted(ctx, s.run, insertOrganizationsSQL, f.Organizations,
		func(o domain.Organization) []any { return []any{o.ID, o.Name, o.DefaultWarehouseID} }); err != nil {
		return nil, err
	}
	// Only a fixture that gives limits touches their columns: older
	// schemas (tests of earlier migrations) load fixtures without them.
	var limited []domain.Organization
	for _, o := range f.Organizations {
		if !o.RateLimit.IsZero() {
			limited = append(limited, o)
		}
	}
	if _, err = inserted(ctx, s.run, setFixtureRateLimitsSQL, limited,
		func(o domain.Organization) []any { return []any{o.ID, o.RateLimit.Rate(), int64(o.RateLimit.Burst())} }); err != nil {
		return nil, err
	}

	type link struct{ organization, warehouse string }
	var links []link
	counts["warehouses"] = 0
	for _, w := range f.Warehouses {
		row := warehouseToRow(w.Warehouse)
		n, err := s.run.exec(ctx, insertWarehouseSQL, row.ID, row.Name, row.Description, row.Active, row.AddressName,
			row.AddressLine1, row.AddressLine2, row.AddressDistrict, row.AddressCity, row.AddressState,
			row.AddressCountryCode, row.AddressPostalCode, row.ContactName, row.ContactEmail, row.ContactPhoneNumber,
			row.ContactFax, pgArray(row.Tags))
		if err != nil {
			return nil, dbErr(err)
		}
		counts["warehouses"] += int(n)
		for _, org := range w.Organizations {
			links = append(links, link{org, w.ID})
		}
	}
	if _, err = inserted(ctx, s.run, insertWarehouseOrganizationsSQL, links,
		func(l link) []any { return []any{l.organization, l.warehouse} }); err != nil {
		return nil, err
	}

	kinds := []shipping.ItemKind{shipping.KindProduct, shipping.KindCarton}
	for _, kind := range kinds {
		var items []shipping.InventoryItem
		for _, it := range f.Inventory {
			if it.Kind == kind {
				items = append(items, it)
			}
		}
		if counts[inventoryTable(kind)], err = inserted(ctx, s.run, insertItemsSQL(kind), items,
			func(it shipping.InventoryItem) []any { return []any{it.ID, it.OrganizationID, it.SKU, it.Name} }); err != nil {
			return nil, err
		}
	}
	for _, kind := range kinds {
		var stock []shipping.Stock
		for _, st := range f.Stock {
			if st.Kind == kind {
				stock = append(stock, st)
			}
		}
		if len(stock) == 0 {
			continue
		}
		n, err := s.insertStock(ctx, kind, stock, f.OpenedAt)
		if err != nil {
			return nil, err
		}
		counts["stock"] += n
	}

	if counts["invoices"], err = saveInvoices(ctx, s.run, f.Invoices); err != nil {
		return nil, err
	}

	counts["apiKeys"] = 0
	for _, k := range f.APIKeys {
		row := apiKeyToRow(k)
		n, err := s.run.exec(ctx, insertAPIKeySQL, row.ID, row.OrganizationID, row.Name, row.Environment, row.Prefix,
			row.Hash, pgArray(row.Scopes), row.CreatedAt, row.RevokedAt)
		if err != nil {
			return nil, dbErr(err)
		}
		counts["apiKeys"] += int(n)
	}

	if counts["webhookSecrets"], err = inserted(ctx, s.run, insertWebhookSecretsSQL, f.Secrets,
		func(sec domain.WebhookSecret) []any { return []any{sec.OrganizationID, sec.Secret} }); err != nil {
		return nil, err
	}
	return counts, nil
}

// insertStock inserts stock rows of kind in batches, each with its opening
// movement dated at, and counts the rows it inserted.
func (s *FixtureStore) insertStock(ctx context.Context, kind shipping.ItemKind, stock []shipping.Stock, at time.Time) (int, error) {
	total := 0
	for start := 0; start < len(stock); start += batchSize {
		args := columns(stock[start:min(start+batchSize, len(stock))],
			func(st shipping.Stock) []any { return []any{st.ItemID, st.WarehouseID, st.OnHand} })
		var opened any // a fixture loaded outside the seed has no time: the database's
		if !at.IsZero() {
			opened = at
		}
		var n int
		err := s.run.query(ctx, insertStockSQL(kind), func(rows *sql.Rows) error { return rows.Scan(&n) }, append(args, opened)...)
		if err != nil {
			// A row past warehouse.MaxOnHand (the document's reader refuses
			// it first): the stock table's CHECK.
			return 0, stockCheckErr(err)
		}
		total += n
	}
	return total, nil
}

// SaveInvoices inserts new invoice aggregates in batches; invoices whose ID
// exists already are skipped with their items. It returns how many were
// inserted. The data generator of the benchmarks uses it too.
func SaveInvoices(ctx context.Context, db bun.IDB, invoices []*invoicing.Invoice) (int, error) {
	return saveInvoices(ctx, runner{db: db}, invoices)
}

func saveInvoices(ctx context.Context, run runner, invoices []*invoicing.Invoice) (int, error) {
	total := 0
	for start := 0; start < len(invoices); start += batchSize {
		batch := invoices[start:min(start+batchSize, len(invoices))]
		items := map[string][]invoiceItemRow{}
		rows := make([]invoiceRow, len(batch))
		for i, inv := range batch {
			rows[i], items[inv.ID()] = invoiceToRows(inv)
		}
		var newItems []invoiceItemRow
		err := run.query(ctx, insertInvoicesSQL, func(sr *sql.Rows) error {
			var id string
			if err := sr.Scan(&id); err != nil {
				return err
			}
			newItems = append(newItems, items[id]...)
			total++
			return nil
		}, columns(rows, func(r invoiceRow) []any {
			deleted := ""
			if r.DeletedAt != nil {
				deleted = timeText(*r.DeletedAt)
			}
			return []any{r.ID, r.OrganizationID, r.Key, r.Status, r.Name, r.Notes, timeText(r.DueDate), r.Currency,
				r.TotalAmount, r.SearchText, timeText(r.CreatedAt), timeText(r.UpdatedAt), deleted}
		})...)
		if err != nil {
			return 0, fmt.Errorf("insert invoices: %w", dbErr(err))
		}
		if _, err := inserted(ctx, run, insertInvoiceItemsSQL, newItems, func(it invoiceItemRow) []any {
			return []any{it.ID, it.InvoiceID, int64(it.Position), it.Title, it.Description, it.Quantity, it.UnitCost, it.TotalCost}
		}); err != nil {
			return 0, fmt.Errorf("insert invoice items: %w", err)
		}
	}
	return total, nil
}

func timeText(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// inserted runs q, an INSERT of one array parameter per column, over rows
// in batches, and counts the rows it inserted. values gives a row's columns,
// each a string or an int64.
func inserted[T any](ctx context.Context, run runner, q statement, rows []T, values func(T) []any) (int, error) {
	n := 0
	for start := 0; start < len(rows); start += batchSize {
		affected, err := run.exec(ctx, q, columns(rows[start:min(start+batchSize, len(rows))], values)...)
		if err != nil {
			return 0, dbErr(err)
		}
		n += int(affected)
	}
	return n, nil
}

// columns turns rows into one array parameter per column (pgArray).
func columns[T any](rows []T, values func(T) []any) []any {
	if len(rows) == 0 {
		return nil
	}
	var texts [][]string
	var ints [][]int64
	kinds := values(rows[0])
	out := make([]any, len(kinds))
	for _, row := range rows {
		for c, v := range values(row) {
			switch v := v.(type) {
			case string:
				for len(texts) <= c {
					texts = append(texts, nil)
				}
				texts[c] = append(texts[c], v)
			case int64:
				for len(ints) <= c {
					ints = append(ints, nil)
				}
				ints[c] = append(ints[c], v)
			default:
				panic("postgres: a fixture column of type " + strconv.Quote(fmt.Sprintf("%T", v)))
			}
		}
	}
	for c, v := range kinds {
		if _, ok := v.(string); ok {
			out[c] = pgArray(texts[c])
		} else {
			out[c] = pgArray(ints[c])
		}
	}
	return out
}
