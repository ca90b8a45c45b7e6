package postgres_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/adapters/postgres"
	"github.com/acme3pl/fulfillment/adapters/postgres/pgtest"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/ports"
)

func fixtureInvoice(t *testing.T, id, org string) *domain.Invoice {
	t.Helper()
	q, _ := domain.ParseQuantity("62")
	now := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	inv, err := domain.NewInvoice(domain.InvoiceParams{
		ID: id, OrganizationID: org, Key: "KEY-" + id, Status: domain.InvoiceUnpaid, Name: "Storage",
		DueDate: now, CreatedAt: now, UpdatedAt: now, Currency: "USD",
		Items: []domain.InvoiceItemParams{{ID: id + "_li", Title: "Pallets", Description: "2 × 31", Quantity: q, UnitCost: 25}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return inv
}

func TestFixtureLoadIsIdempotent(t *testing.T) {
	f := ports.Fixture{
		Organizations: []domain.Organization{{ID: "org_fx", Name: "Fx", DefaultWarehouseID: "wh_fx"}},
		Warehouses:    []ports.FixtureWarehouse{{Warehouse: warehouse("wh_fx", "Fx DC", true), Organizations: []string{"org_fx"}}},
		Inventory: []domain.InventoryItem{
			{ID: "prod_fx", OrganizationID: "org_fx", Kind: domain.KindProduct, SKU: "FX-1", Name: "P"},
			{ID: "ctn_fx", OrganizationID: "org_fx", Kind: domain.KindCarton, SKU: "FX-C", Name: "C"},
		},
		Stock: []domain.Stock{
			{WarehouseID: "wh_fx", Kind: domain.KindProduct, ItemID: "prod_fx", OnHand: 7},
			{WarehouseID: "wh_fx", Kind: domain.KindCarton, ItemID: "ctn_fx", OnHand: 3},
		},
		Invoices: []*domain.Invoice{fixtureInvoice(t, "inv_fx", "org_fx")},
		Secrets:  []domain.WebhookSecret{{OrganizationID: "org_fx", Secret: "0123456789abcdef0123"}},
	}
	first := load(t, f)
	want := map[string]int{"organizations": 1, "warehouses": 1, "products": 1, "cartons": 1, "stock": 2, "invoices": 1, "webhookSecrets": 1}
	for k, n := range want {
		if first[k] != n {
			t.Errorf("first load %s = %d, want %d", k, first[k], n)
		}
	}
	second := load(t, f)
	for k, n := range second {
		if n != 0 {
			t.Errorf("second load inserted %d %s, want nothing", n, k)
		}
	}
	inv, err := postgres.NewRepositories(pgtest.Open(t, testDSN)).Invoices.Get(context.Background(), "org_fx", "inv_fx")
	if err != nil || inv.TotalAmount() != 1550 || len(inv.Items()) != 1 || inv.Items()[0].Quantity().String() != "62" {
		t.Fatalf("invoice after load: %+v %v", inv, err)
	}
}

// TestFixtureLoadIsAtomic: a load that fails half-way writes nothing.
func TestFixtureLoadIsAtomic(t *testing.T) {
	db := pgtest.Open(t, testDSN)
	f := ports.Fixture{
		Organizations: []domain.Organization{{ID: "org_fx_atomic", Name: "Atomic"}},
		// a product of an organization that does not exist: a foreign key fails
		Inventory: []domain.InventoryItem{{ID: "prod_fx_atomic", OrganizationID: "org_missing", Kind: domain.KindProduct, SKU: "X", Name: "X"}},
	}
	err := postgres.NewUnitOfWork(db).Do(context.Background(), func(ctx context.Context, r ports.Repositories) error {
		_, err := r.Fixtures.Load(ctx, f)
		return err
	})
	if err == nil {
		t.Fatal("load with a dangling organization succeeded")
	}
	if _, err := postgres.NewRepositories(db).Organizations.Get(context.Background(), "org_fx_atomic"); err == nil {
		t.Fatal("the organization of a failed load was written")
	}
}

// TestDatabaseRefusesInconsistentInvoices: the constraints hold even for
// writes that bypass the domain.
func TestDatabaseRefusesInconsistentInvoices(t *testing.T) {
	db := pgtest.Open(t, testDSN)
	ctx := context.Background()
	load(t, ports.Fixture{Organizations: []domain.Organization{{ID: "org_fx_db", Name: "Db"}}})
	insertInvoice := `INSERT INTO invoices (id, organization_id, key, status, name, due_date, currency, total_amount, search_text, created_at, updated_at)
		VALUES (?, 'org_fx_db', ?, 'unpaid', 'x', now(), 'USD', ?, 'x', now(), now())`
	tests := []struct {
		name    string
		stmts   [][]any
		wantErr string
	}{
		{"total differs from items", [][]any{
			{insertInvoice, "inv_db_1", "K1", 100},
			{"INSERT INTO invoice_items (id, invoice_id, position, title, description, quantity, unit_cost, total_cost) VALUES ('li_db_1', 'inv_db_1', 0, 't', 'd', 2, 25, 50)"},
		}, "differs from the sum"},
		{"line total not quantity × unit cost", [][]any{
			{insertInvoice, "inv_db_2", "K2", 51},
			{"INSERT INTO invoice_items (id, invoice_id, position, title, description, quantity, unit_cost, total_cost) VALUES ('li_db_2', 'inv_db_2', 0, 't', 'd', 2, 25, 51)"},
		}, "invoice_items_check"},
		{"fractional quantity rounds half away from zero", [][]any{
			{insertInvoice, "inv_db_3", "K3", 3},
			{"INSERT INTO invoice_items (id, invoice_id, position, title, description, quantity, unit_cost, total_cost) VALUES ('li_db_3', 'inv_db_3', 0, 't', 'd', 2.5, 1, 2)"},
		}, "invoice_items_check"},
		{"currency other than USD", [][]any{
			{strings.Replace(insertInvoice, "'USD'", "'EUR'", 1), "inv_db_4", "K4", 0},
		}, "invoices_currency_check"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tx, err := db.BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = tx.Rollback() }()
			for _, s := range tt.stmts {
				if _, err = tx.ExecContext(ctx, s[0].(string), s[1:]...); err != nil {
					break
				}
			}
			if err == nil {
				err = tx.Commit()
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

// The stock a fixture loads is the ledger's opening balance: one movement
// per stock row inserted, none for a row that exists or holds nothing, so
// that on hand is the sum of the movements.
func TestFixtureStockOpensTheLedger(t *testing.T) {
	n := shipNamer()
	org, wh := n("org_fx_ledger"), n("wh_fx_ledger")
	f := ports.Fixture{
		Organizations: []domain.Organization{{ID: org, Name: "Ledger"}},
		Warehouses:    []ports.FixtureWarehouse{{Warehouse: warehouse(wh, "Ledger DC", true), Organizations: []string{org}}},
		Inventory: []domain.InventoryItem{
			{ID: n("prod_fx_l"), OrganizationID: org, Kind: domain.KindProduct, SKU: "L-1", Name: "P"},
			{ID: n("prod_fx_z"), OrganizationID: org, Kind: domain.KindProduct, SKU: "L-0", Name: "Z"},
			{ID: n("ctn_fx_l"), OrganizationID: org, Kind: domain.KindCarton, SKU: "L-C", Name: "C"},
		},
		Stock: []domain.Stock{
			{WarehouseID: wh, Kind: domain.KindProduct, ItemID: n("prod_fx_l"), OnHand: 7},
			{WarehouseID: wh, Kind: domain.KindProduct, ItemID: n("prod_fx_l"), OnHand: 9}, // given twice: the first is kept
			{WarehouseID: wh, Kind: domain.KindProduct, ItemID: n("prod_fx_z"), OnHand: 0},
			{WarehouseID: wh, Kind: domain.KindCarton, ItemID: n("ctn_fx_l"), OnHand: 3},
		},
	}
	load(t, f)
	load(t, f) // a second load inserts nothing, and moves nothing
	db := pgtest.Open(t, testDSN)
	var rows []struct {
		Item     string `bun:"item"`
		Quantity int64  `bun:"quantity"`
		Reason   string `bun:"reason"`
	}
	if err := db.NewRaw(`SELECT coalesce(product_id, carton_id) AS item, quantity, reason FROM stock_movements
		WHERE organization_id = ? ORDER BY item`, org).Scan(context.Background(), &rows); err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, r := range rows {
		if r.Reason != "opening" {
			t.Errorf("movement %+v, want an opening", r)
		}
		got[r.Item] += r.Quantity
	}
	if len(rows) != 2 || got[n("prod_fx_l")] != 7 || got[n("ctn_fx_l")] != 3 {
		t.Fatalf("movements %+v, want the openings 7 and 3", rows)
	}
	shipWantStock(t, db, "product_stock", wh, n("prod_fx_l"), 7, 0)
}
