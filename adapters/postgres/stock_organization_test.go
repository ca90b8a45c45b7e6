package postgres_test

import (
	"context"
	"strings"
	"testing"

	"github.com/acme3pl/fulfillment/adapters/postgres/pgtest"
	"github.com/acme3pl/fulfillment/migrations"
)

// The migration that gives stock rows their organization fills it in from
// each row's product or carton, and from then on a stock row cannot name
// another organization than its item's. Its down migration keeps the rows.
func TestStockOrganizationMigration(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.Database(t, false)
	db := pgtest.Open(t, dsn)
	m := pgtest.NewMigrator(t, db, migrations.FS)
	if _, err := m.Up(ctx); err != nil {
		t.Fatal(err)
	}
	for { // down to the schema before 0013
		down, err := m.Down(ctx)
		if err != nil || down == "" {
			t.Fatalf("down: %q %v before 0013", down, err)
		}
		if strings.HasPrefix(down, "0013_") {
			break
		}
	}
	exec := func(q string, args ...any) error { _, err := db.ExecContext(ctx, q, args...); return err }
	// The rows as the schema before it held them: no organization.
	for _, q := range []string{
		`INSERT INTO organizations (id, name) VALUES ('org_a', 'A'), ('org_b', 'B')`,
		`INSERT INTO warehouses (id, name, address_name, address_line1, address_city, address_state, address_country_code,
			address_postal_code, contact_name, contact_email, contact_phone_number)
			VALUES ('wh', 'W', 'W', '1 Road', 'City', 'ST', 'US', '00000', 'C', 'c@example.com', '555'),
			('wh2', 'W2', 'W', '1 Road', 'City', 'ST', 'US', '00000', 'C', 'c@example.com', '555')`,
		`INSERT INTO products (id, organization_id, sku, name) VALUES ('p_a', 'org_a', 'PA', 'P'), ('p_b', 'org_b', 'PB', 'P')`,
		`INSERT INTO cartons (id, organization_id, sku, name) VALUES ('c_b', 'org_b', 'CB', 'C')`,
		`INSERT INTO product_stock (product_id, warehouse_id, on_hand, reserved) VALUES ('p_a', 'wh', 5, 1), ('p_b', 'wh', 7, 0)`,
		`INSERT INTO carton_stock (carton_id, warehouse_id, on_hand) VALUES ('c_b', 'wh', 3)`,
	} {
		if err := exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := m.Up(ctx); err != nil {
		t.Fatal(err)
	}
	var got string
	if err := db.QueryRowContext(ctx, `SELECT string_agg(item || ':' || organization_id || ':' || on_hand, ' ' ORDER BY item) FROM (
		SELECT product_id AS item, organization_id, on_hand FROM product_stock
		UNION ALL SELECT carton_id, organization_id, on_hand FROM carton_stock) s`).Scan(&got); err != nil {
		t.Fatal(err)
	}
	if want := "c_b:org_b:3 p_a:org_a:5 p_b:org_b:7"; got != want {
		t.Fatalf("stock rows after the migration: %s, want %s", got, want)
	}
	for _, q := range []string{
		`INSERT INTO product_stock (organization_id, product_id, warehouse_id, on_hand) VALUES ('org_b', 'p_a', 'wh2', 1)`,
		`UPDATE product_stock SET organization_id = 'org_b' WHERE product_id = 'p_a'`,
		`INSERT INTO carton_stock (organization_id, carton_id, warehouse_id, on_hand) VALUES ('org_a', 'c_b', 'wh2', 1)`,
	} {
		if err := exec(q); err == nil || !strings.Contains(err.Error(), "23503") {
			t.Fatalf("%s: %v, want a foreign key violation", q, err)
		}
	}
	if _, err := m.Down(ctx); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRowContext(ctx, `SELECT string_agg(product_id || ':' || on_hand, ' ' ORDER BY product_id) FROM product_stock`).Scan(&got); err != nil {
		t.Fatal(err)
	}
	if want := "p_a:5 p_b:7"; got != want {
		t.Fatalf("stock rows after down: %s, want %s", got, want)
	}
}
