package pagetests

import (
	"net/url"
	"strings"
	"testing"
)

// The audit page lists the records of the console's actions newest first,
// filtered by organization, actor and action; a filter that is not one is
// 400.
func TestAuditPage(t *testing.T) {
	w := newWorld(t)
	const org = "org_pg_ops"
	want(t, w.post(t, "admin", "/organizations/limit", url.Values{"org": {org}, "rate": {"10/s"}}), 200)
	want(t, w.post(t, "admin", "/organizations/limit", url.Values{"org": {org}, "rate": {"20/s"}}), 200)
	a := w.get(t, "viewer", "/audit?org="+org+"&action=orgs.limit&actor=clerk-admin")
	want(t, a, 200, "<h1>Audit log</h1>", "orgs.limit", "clerk-admin", "admin@3pl.example")
	first, second := strings.Index(a.body, `20/s`), strings.Index(a.body, `10/s`)
	if first < 0 || second < 0 || first > second {
		t.Errorf("want the newest record (20/s) before the older (10/s):\n%s", a.body)
	}
	a = w.get(t, "viewer", "/audit?org="+org+"&action=charges.add")
	want(t, a, 200, "No record matches these filters")
	want(t, w.get(t, "viewer", "/audit?action=rm.rf"), 400, "action")
	want(t, w.get(t, "viewer", "/audit?org=bad%20id"), 400, "org")
	want(t, w.get(t, "viewer", "/audit?skip=-1"), 400, "skip")
	want(t, w.get(t, "viewer", "/audit"), 200, "orgs.limit")
}
