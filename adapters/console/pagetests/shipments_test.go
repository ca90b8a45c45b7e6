package pagetests

import (
	"net/url"
	"testing"

	"github.com/acme3pl/fulfillment/domain/audit"
)

// The shipments page lists a shipment and shows its lines without the
// person's address; ops cancels it, a viewer may not, and a second cancel
// changes nothing.
func TestShipmentsCancel(t *testing.T) {
	w := newWorld(t)
	const org = "org_pg_ops"
	id := w.take(t, org, orderBody(7301, "PG-SOCK"))
	a := w.get(t, "viewer", "/shipments?org="+org)
	want(t, a, 200, "<h1>Shipments of", id)
	a = w.get(t, "viewer", "/shipments?org="+org+"&status=pending")
	want(t, a, 200, id)
	a = w.get(t, "viewer", "/shipments?org="+org+"&id="+id)
	want(t, a, 200, "Shipment <code>"+id+"</code>", "PG-SOCK", `id="cancel-shipment"`, "7301")
	wantNot(t, a, "Hidden Lane", "Ann Example", "555-0111", "08608")
	want(t, w.get(t, "viewer", "/shipments?org="+org+"&status=lost"), 400)
	want(t, w.get(t, "viewer", "/shipments?org="+org+"&id=shp_nope"), 404)

	want(t, w.post(t, "viewer", "/shipments/cancel", url.Values{"org": {org}, "id": {id}}), 403)
	want(t, w.get(t, "viewer", "/shipments?org="+org+"&id="+id), 200, `<dd id="shipment-status">pending</dd>`)
	want(t, w.post(t, "ops", "/shipments/cancel", url.Values{"org": {org}, "id": {"bad id"}}), 400)
	want(t, w.post(t, "ops", "/shipments/cancel", url.Values{"org": {org}, "id": {"shp_nope"}}), 404)
	a = w.post(t, "ops", "/shipments/cancel", url.Values{"org": {org}, "id": {id}})
	want(t, a, 200, "Done.", `<dd id="cancel-status">cancelled</dd>`)
	a = w.post(t, "ops", "/shipments/cancel", url.Values{"org": {org}, "id": {id}})
	want(t, a, 200, "Unchanged.")
	if got := outcomesOf(w, t, org, audit.ShipmentsCancel); got != "done,invalid_state" {
		t.Errorf("shipments.cancel outcomes %q, want done, then the use case's refusal of the repeat", got)
	}
}
