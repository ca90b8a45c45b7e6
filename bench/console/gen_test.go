package main

import (
	"context"
	"testing"

	"github.com/acme3pl/fulfillment/adapters/postgres/pgtest"
)

// gen fills a small scale database whose rows keep the service's rules
// (the ones its triggers and foreign keys, off for the bulk steps, would
// have checked, and the ones the service keeps itself), with every index
// of the schema built again; a second run adds nothing.
func TestGenFillsAConsistentDatabaseOnce(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.Database(t, false)
	args := []string{"-dsn", dsn, "-big", "400", "-others", "40", "-audit", "100", "-body", "../../docs/samples/orders-create.json"}
	if err := gen(ctx, args); err != nil {
		t.Fatal(err)
	}
	db := pgtest.Open(t, dsn)
	count := func(q string) int {
		t.Helper()
		var n int
		if err := db.QueryRowContext(ctx, q).Scan(&n); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return n
	}
	for what, q := range map[string]string{
		"invoices whose total is not the sum of their lines": `SELECT count(*) FROM invoices i
			WHERE total_amount <> (SELECT coalesce(sum(total_cost), 0) FROM invoice_items WHERE invoice_id = i.id)`,
		"invoice lines of no invoice": `SELECT count(*) FROM invoice_items l WHERE NOT EXISTS (SELECT 1 FROM invoices WHERE id = l.invoice_id)`,
		"shipment lines of another organization's product or of no shipment": `SELECT count(*) FROM shipment_items l
			WHERE NOT EXISTS (SELECT 1 FROM products p WHERE p.id = l.product_id AND p.organization_id = l.organization_id)
			   OR NOT EXISTS (SELECT 1 FROM shipments s WHERE s.id = l.shipment_id AND s.organization_id = l.organization_id)`,
		"shipments without lines": `SELECT count(*) FROM shipments s WHERE NOT EXISTS (SELECT 1 FROM shipment_items WHERE shipment_id = s.id)`,
		"shipped lines without their movement": `SELECT count(*) FROM shipments s JOIN shipment_items l ON l.shipment_id = s.id
			WHERE s.status = 'shipped' AND NOT EXISTS (SELECT 1 FROM stock_movements m
				WHERE m.shipment_id = s.id AND m.product_id = l.product_id AND m.quantity = -l.quantity)`,
		"stock rows other than the sum of their ledger": `SELECT count(*) FROM product_stock s
			WHERE on_hand <> (SELECT sum(quantity) FROM stock_movements m WHERE m.product_id = s.product_id AND m.warehouse_id = s.warehouse_id)`,
		"stock rows whose reserved is not their pending lines": `SELECT count(*) FROM product_stock s
			WHERE reserved <> (SELECT coalesce(sum(l.quantity), 0) FROM shipment_items l JOIN shipments p ON p.id = l.shipment_id
				WHERE p.status = 'pending' AND p.warehouse_id = s.warehouse_id AND l.product_id = s.product_id)`,
		"finalized periods without their invoice": `SELECT count(*) FROM billing_periods p
			WHERE status = 'finalized' AND NOT EXISTS (SELECT 1 FROM invoices WHERE id = p.invoice_id AND key = p.invoice_key)`,
		"shipped shipments since the card without their charge": `SELECT count(*) FROM shipments s
			WHERE s.organization_id = 'org_big' AND s.status = 'shipped' AND s.shipped_at >= (SELECT min(starts_at) FROM billing_periods)
			AND NOT EXISTS (SELECT 1 FROM billing_charges c WHERE c.fee = 'pick_pack_order' AND c.source_id = s.id)`,
		"failed receipts without their body": `SELECT count(*) FROM order_receipts WHERE status = 'failed' AND payload IS NULL`,
	} {
		if n := count(q); n != 0 {
			t.Errorf("%d %s", n, what)
		}
	}
	// Every index dropped for a bulk step is built again, as the
	// migrations define it.
	const indexes = `SELECT coalesce(string_agg(indexdef, E'\n' ORDER BY indexname), '') FROM pg_indexes WHERE schemaname = 'public'`
	var got, want string
	if err := db.QueryRowContext(ctx, indexes).Scan(&got); err != nil {
		t.Fatal(err)
	}
	if err := pgtest.Open(t, pgtest.Database(t, true)).QueryRowContext(ctx, indexes).Scan(&want); err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("indexes:\n%s\nwant those of the migrations:\n%s", got, want)
	}
	if err := pgtest.CheckChargeDays(ctx, dsn); err != nil {
		t.Error(err)
	}
	// The figures the load generator names: the big organization's
	// shipment, a finalized month, a failed order.
	for what, q := range map[string]string{
		"shp_big_0000200":               `SELECT count(*) FROM shipments WHERE id = 'shp_big_0000200'`,
		"eleven finalized months":       `SELECT count(*) / 11 FROM billing_periods WHERE organization_id = 'org_big' AND status = 'finalized'`,
		"one open period":               `SELECT count(*) FROM billing_periods WHERE organization_id = 'org_big' AND status = 'open'`,
		"failed order 90001500":         `SELECT count(*) FROM order_receipts WHERE organization_id = 'org_big' AND order_id = 90001500 AND status = 'failed'`,
		"100 audit records":             `SELECT count(*) / 100 FROM audit_records`,
		"one organization with a limit": `SELECT count(*) FROM organizations WHERE rate_limit IS NOT NULL`,
	} {
		if n := count(q); n != 1 {
			t.Errorf("%s: %d, want 1", what, n)
		}
	}

	const rows = `SELECT (SELECT count(*) FROM invoices) + (SELECT count(*) FROM shipments) + (SELECT count(*) FROM stock_movements)
		+ (SELECT count(*) FROM billing_charges) + (SELECT count(*) FROM order_receipts) + (SELECT count(*) FROM audit_records)`
	before := count(rows)
	if err := gen(ctx, args); err != nil {
		t.Fatal(err)
	}
	if after := count(rows); after != before {
		t.Fatalf("a second run: %d rows, want the %d of the first", after, before)
	}
}
