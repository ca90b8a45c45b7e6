package pagetests

import "testing"

// The inventory page shows a product's on hand, reserved and available at
// each warehouse, and its ledger: the opening stock of the seed.
func TestInventory(t *testing.T) {
	w := newWorld(t)
	const org = "org_pg_bill"
	a := w.get(t, "viewer", "/inventory?org="+org)
	want(t, a, 200, "<h1>Inventory of", "PG-BILL", "Pages DC", `<td class="num">50</td>`, "item=prod_pg_bill")
	a = w.get(t, "viewer", "/inventory?org="+org+"&kind=carton")
	want(t, a, 200, "No carton")
	a = w.get(t, "viewer", "/inventory?org="+org+"&sku=PG-NONE")
	want(t, a, 200, "No product with the SKU PG-NONE")
	a = w.get(t, "viewer", "/inventory?org="+org+"&item=prod_pg_bill")
	want(t, a, 200, "Stock movements of", "opening", `<td class="num">50</td>`)
	want(t, w.get(t, "viewer", "/inventory?org="+org+"&kind=pallet"), 400, "kind")
	want(t, w.get(t, "viewer", "/inventory?org="+org+"&item=bad%20id"), 400, "item")
	want(t, w.get(t, "viewer", "/inventory"), 200, "Choose an organization")
}
