package pagetests

import (
	"net/url"
	"regexp"
	"testing"

	"github.com/acme3pl/fulfillment/domain/audit"
)

// An admin sets a limit, creates a key (its secret shown once, never on
// the organization's page) and revokes it; billing may not; bad input is
// 400.
func TestOrganizations(t *testing.T) {
	w := newWorld(t)
	const org = "org_pg_admin"
	want(t, w.get(t, "viewer", "/organizations"), 200, "<h1>Organizations</h1>", "Pages Admin Co", org)
	want(t, w.get(t, "viewer", "/organizations?org="+org), 200, `<dd id="org-limit">the default</dd>`, `id="apikey-form"`)
	want(t, w.get(t, "viewer", "/organizations?org=org_nope"), 404)

	want(t, w.post(t, "billing", "/organizations/limit", url.Values{"org": {org}, "rate": {"50/s"}}), 403)
	want(t, w.post(t, "admin", "/organizations/limit", url.Values{"org": {org}, "rate": {"fast"}}), 400, "rate")
	want(t, w.post(t, "admin", "/organizations/limit", url.Values{"org": {org}, "rate": {"50/s"}, "burst": {"0"}}), 400, "burst")
	want(t, w.post(t, "admin", "/organizations/limit", url.Values{"org": {"org_nope"}, "rate": {"50/s"}}), 404)
	a := w.post(t, "admin", "/organizations/limit", url.Values{"org": {org}, "rate": {"50/s"}, "burst": {"80"}})
	want(t, a, 200, "Done.", `id="limit-now"`)
	want(t, w.get(t, "viewer", "/organizations?org="+org), 200, "50/s")
	want(t, w.post(t, "admin", "/organizations/limit", url.Values{"org": {org}, "rate": {"default"}}), 200, "the default limit")

	want(t, w.post(t, "billing", "/organizations/apikeys", url.Values{"org": {org}, "name": {"n"}, "scopes": {"invoices"}}), 403)
	want(t, w.post(t, "admin", "/organizations/apikeys", url.Values{"org": {org}, "name": {"n"}, "scopes": {"everything"}}), 400, "scopes")
	want(t, w.post(t, "admin", "/organizations/apikeys", url.Values{"org": {org}, "name": {"n"}}), 400, "scopes")
	a = w.post(t, "admin", "/organizations/apikeys", url.Values{"org": {org}, "name": {"Warehouse sync"}, "scopes": {"invoices", "shipments"}})
	want(t, a, 200, "shown only once", `id="api-key-secret"`)
	secret := regexp.MustCompile(`id="api-key-secret" type="text" readonly value="([^"]+)"`).FindStringSubmatch(a.body)
	if secret == nil || len(secret[1]) < 20 {
		t.Fatalf("no secret on the page:\n%s", a.body)
	}
	a = w.get(t, "viewer", "/organizations?org="+org)
	want(t, a, 200, "Warehouse sync", "invoices, shipments")
	wantNot(t, a, secret[1])
	keyID := regexp.MustCompile(`id="revoke-([^"]+)"`).FindStringSubmatch(a.body)
	if keyID == nil {
		t.Fatalf("no revoke button:\n%s", a.body)
	}
	want(t, w.post(t, "billing", "/organizations/apikeys/revoke", url.Values{"keyId": {keyID[1]}}), 403)
	want(t, w.post(t, "admin", "/organizations/apikeys/revoke", url.Values{"keyId": {"no such"}}), 400)
	want(t, w.post(t, "admin", "/organizations/apikeys/revoke", url.Values{"keyId": {keyID[1]}}), 200, "Done.")
	a = w.get(t, "viewer", "/organizations?org="+org)
	wantNot(t, a, `id="revoke-`+keyID[1]+`"`)
	for action, outcomes := range map[audit.Action]string{audit.OrgsLimit: "done,done", audit.APIKeysCreate: "done", audit.APIKeysRevoke: "done"} {
		if got := outcomesOf(w, t, org, action); got != outcomes {
			t.Errorf("%s outcomes %q, want %q", action, got, outcomes)
		}
	}
}
