package postgres

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/ports"
)

// FixtureStore implements ports.FixtureStore. Every insert is
// ON CONFLICT DO NOTHING: a record whose key exists is left as it is, so a
// second load of the same document changes nothing.
type FixtureStore struct{ db bun.IDB }

var _ ports.FixtureStore = (*FixtureStore)(nil)

// batchSize bounds the rows of one INSERT statement.
const batchSize = 1000

type warehouseOrganizationRow struct {
	bun.BaseModel `bun:"table:warehouse_organizations"`

	OrganizationID string `bun:"organization_id,pk"`
	WarehouseID    string `bun:"warehouse_id,pk"`
}

type stockRow struct {
	ItemID      string `bun:"item_id"`
	WarehouseID string `bun:"warehouse_id"`
	OnHand      int64  `bun:"on_hand"`
}

type webhookSecretRow struct {
	bun.BaseModel `bun:"table:webhook_secrets"`

	OrganizationID string `bun:"organization_id,pk"`
	Secret         string `bun:"secret"`
}

// Load writes f and counts the records it inserted.
func (s *FixtureStore) Load(ctx context.Context, f ports.Fixture) (ports.FixtureCounts, error) {
	counts := ports.FixtureCounts{}
	var err error

	orgs := make([]organizationRow, len(f.Organizations))
	for i, o := range f.Organizations {
		orgs[i] = organizationRow{ID: o.ID, Name: o.Name}
		if o.DefaultWarehouseID != "" {
			id := o.DefaultWarehouseID
			orgs[i].DefaultWarehouseID = &id
		}
	}
	if counts["organizations"], err = insertIgnore(ctx, s.db, orgs, "id"); err != nil {
		return nil, err
	}

	whs := make([]warehouseRow, len(f.Warehouses))
	var links []warehouseOrganizationRow
	for i, w := range f.Warehouses {
		whs[i] = warehouseToRow(w.Warehouse)
		for _, org := range w.Organizations {
			links = append(links, warehouseOrganizationRow{OrganizationID: org, WarehouseID: w.ID})
		}
	}
	if counts["warehouses"], err = insertIgnore(ctx, s.db, whs, "id"); err != nil {
		return nil, err
	}
	if _, err = insertIgnore(ctx, s.db, links, "organization_id, warehouse_id"); err != nil {
		return nil, err
	}

	byKind := map[domain.ItemKind][]inventoryRow{}
	for _, it := range f.Inventory {
		byKind[it.Kind] = append(byKind[it.Kind], inventoryRow{ID: it.ID, OrganizationID: it.OrganizationID, SKU: it.SKU, Name: it.Name})
	}
	for _, kind := range []domain.ItemKind{domain.KindProduct, domain.KindCarton} {
		table := inventoryTable(kind)
		if counts[table], err = insertIgnoreInto(ctx, s.db, table, byKind[kind], "id"); err != nil {
			return nil, err
		}
	}

	stock := map[domain.ItemKind][]stockRow{}
	for _, st := range f.Stock {
		stock[st.Kind] = append(stock[st.Kind], stockRow{ItemID: st.ItemID, WarehouseID: st.WarehouseID, OnHand: st.OnHand})
	}
	for kind, rows := range stock {
		n, err := insertStock(ctx, s.db, kind, rows)
		if err != nil {
			return nil, err
		}
		counts["stock"] += n
	}

	if counts["invoices"], err = SaveInvoices(ctx, s.db, f.Invoices); err != nil {
		return nil, err
	}

	keys := make([]apiKeyRow, len(f.APIKeys))
	for i, k := range f.APIKeys {
		keys[i] = apiKeyToRow(k)
	}
	if counts["apiKeys"], err = insertIgnore(ctx, s.db, keys, "id"); err != nil {
		return nil, err
	}

	secrets := make([]webhookSecretRow, len(f.Secrets))
	for i, sec := range f.Secrets {
		secrets[i] = webhookSecretRow{OrganizationID: sec.OrganizationID, Secret: sec.Secret}
	}
	if counts["webhookSecrets"], err = insertIgnore(ctx, s.db, secrets, "organization_id"); err != nil {
		return nil, err
	}
	return counts, nil
}

// SaveInvoices inserts new invoice aggregates in batches; invoices whose ID
// exists already are skipped with their items. It returns how many were
// inserted. The data generator of the benchmarks uses it too.
func SaveInvoices(ctx context.Context, db bun.IDB, invoices []*domain.Invoice) (int, error) {
	inserted := 0
	for start := 0; start < len(invoices); start += batchSize {
		end := min(start+batchSize, len(invoices))
		rows := make([]invoiceRow, 0, end-start)
		items := map[string][]invoiceItemRow{}
		for _, inv := range invoices[start:end] {
			row, its := invoiceToRows(inv)
			rows = append(rows, row)
			items[row.ID] = its
		}
		var ids []string
		err := db.NewInsert().Model(&rows).On("CONFLICT (id) DO NOTHING").Returning("id").Scan(ctx, &ids)
		if err != nil {
			return 0, fmt.Errorf("insert invoices: %w", dbErr(err))
		}
		var newItems []invoiceItemRow
		for _, id := range ids {
			newItems = append(newItems, items[id]...)
		}
		if _, err := insertIgnore(ctx, db, newItems, "id"); err != nil {
			return 0, fmt.Errorf("insert invoice items: %w", err)
		}
		inserted += len(ids)
	}
	return inserted, nil
}

func insertIgnore[T any](ctx context.Context, db bun.IDB, rows []T, conflict string) (int, error) {
	return insertIgnoreInto(ctx, db, "", rows, conflict)
}

// insertIgnoreInto inserts rows in batches with ON CONFLICT (conflict) DO
// NOTHING into table (or the model's table when empty) and counts the rows
// inserted.
func insertIgnoreInto[T any](ctx context.Context, db bun.IDB, table string, rows []T, conflict string) (int, error) {
	n := 0
	for start := 0; start < len(rows); start += batchSize {
		batch := rows[start:min(start+batchSize, len(rows))]
		q := db.NewInsert().Model(&batch).On("CONFLICT (" + conflict + ") DO NOTHING")
		if table != "" {
			q = q.ModelTableExpr(table)
		}
		res, err := q.Exec(ctx)
		if err != nil {
			return 0, dbErr(err)
		}
		affected, _ := res.RowsAffected()
		n += int(affected)
	}
	return n, nil
}

func insertStock(ctx context.Context, db bun.IDB, kind domain.ItemKind, rows []stockRow) (int, error) {
	table, column := stockTable(kind)
	n := 0
	for start := 0; start < len(rows); start += batchSize {
		batch := rows[start:min(start+batchSize, len(rows))]
		res, err := db.NewRaw(
			"INSERT INTO ? (?, warehouse_id, on_hand) SELECT v.item_id, v.warehouse_id, v.on_hand FROM (?) AS v (item_id, warehouse_id, on_hand) ON CONFLICT DO NOTHING",
			bun.Ident(table), bun.Ident(column), db.NewValues(&batch)).Exec(ctx)
		if err != nil {
			return 0, dbErr(err)
		}
		affected, _ := res.RowsAffected()
		n += int(affected)
	}
	return n, nil
}
