package postgres_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/adapters/postgres"
	pgaccess "github.com/acme3pl/fulfillment/adapters/postgres/access"
	pgfixture "github.com/acme3pl/fulfillment/adapters/postgres/fixture"
	pginvoicing "github.com/acme3pl/fulfillment/adapters/postgres/invoicing"
	"github.com/acme3pl/fulfillment/adapters/postgres/pgtest"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/invoicing"
	"github.com/acme3pl/fulfillment/domain/shipping"
	fixtureports "github.com/acme3pl/fulfillment/ports/fixture"
)

func fixtureInvoice(t *testing.T, id, org string) *invoicing.Invoice {
	t.Helper()
	q, _ := domain.ParseQuantity("62")
	now := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	inv, err := invoicing.NewInvoice(invoicing.InvoiceParams{
		ID: id, OrganizationID: org, Key: "KEY-" + id, Status: invoicing.InvoiceUnpaid, Name: "Storage",
		DueDate: now, CreatedAt: now, UpdatedAt: now, Currency: "USD",
		Items: []invoicing.InvoiceItemParams{{ID: id + "_li", Title: "Pallets", Description: "2 × 31", Quantity: q, UnitCost: 25}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return inv
}

func TestFixtureLoadIsIdempotent(t *testing.T) {
	f := fixtureports.Fixture{
		Organizations: []domain.Organization{{ID: "org_fx", Name: "Fx", DefaultWarehouseID: "wh_fx"}},
		Warehouses:    []fixtureports.Warehouse{{Warehouse: warehouse("wh_fx", "Fx DC", true), Organizations: []string{"org_fx"}}},
		Inventory: []shipping.InventoryItem{
			{ID: "prod_fx", OrganizationID: "org_fx", Kind: shipping.KindProduct, SKU: "FX-1", Name: "P"},
			{ID: "ctn_fx", OrganizationID: "org_fx", Kind: shipping.KindCarton, SKU: "FX-C", Name: "C"},
		},
		Stock: []shipping.Stock{
			{WarehouseID: "wh_fx", Kind: shipping.KindProduct, ItemID: "prod_fx", OnHand: 7},
			{WarehouseID: "wh_fx", Kind: shipping.KindCarton, ItemID: "ctn_fx", OnHand: 3},
		},
		Invoices: []*invoicing.Invoice{fixtureInvoice(t, "inv_fx", "org_fx")},
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
	inv, err := pginvoicing.Invoices(postgres.OnPool(pgtest.Open(t, testDSN))).Get(context.Background(), "org_fx", "inv_fx")
	if err != nil || inv.TotalAmount() != 1550 || len(inv.Items()) != 1 || inv.Items()[0].Quantity().String() != "62" {
		t.Fatalf("invoice after load: %+v %v", inv, err)
	}
}

// TestFixtureLoadIsAtomic: a load that fails half-way writes nothing.
func TestFixtureLoadIsAtomic(t *testing.T) {
	db := pgtest.Open(t, testDSN)
	f := fixtureports.Fixture{
		Organizations: []domain.Organization{{ID: "org_fx_atomic", Name: "Atomic"}},
		// a product of an organization that does not exist: a foreign key fails
		Inventory: []shipping.InventoryItem{{ID: "prod_fx_atomic", OrganizationID: "org_missing", Kind: shipping.KindProduct, SKU: "X", Name: "X"}},
	}
	err := postgres.NewUnitOfWork(db, pgfixture.Repositories).Do(context.Background(), func(ctx context.Context, r fixtureports.Repositories) error {
		_, err := r.Fixtures.Load(ctx, f)
		return err
	})
	if err == nil {
		t.Fatal("load with a dangling organization succeeded")
	}
	if _, err := postgres.NewRepositories(db, pgaccess.Repositories).Organizations.Get(context.Background(), "org_fx_atomic"); err == nil {
		t.Fatal("the organization of a failed load was written")
	}
}

// TestDatabaseRefusesInconsistentInvoices: the constraints hold even for
// writes that bypass the domain.
func TestDatabaseRefusesInconsistentInvoices(t *testing.T) {
	db := pgtest.Open(t, testDSN)
	ctx := context.Background()
	load(t, fixtureports.Fixture{Organizations: []domain.Organization{{ID: "org_fx_db", Name: "Db"}}})
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
