package cluster_test

// The exactly-once check of the platform team's day: the orders the load
// sent, judged against what the database holds (judgeOrders, tested on its
// own in judge_test.go), and every optional part seen on.

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// exactlyOnce is what the database and the answers say about the day's
// orders.
type exactlyOnce struct {
	orders     int // distinct orders delivered
	lost       int // orders without a shipment in the database
	duplicated int // orders with more than one
	atOnce     int // deliberate redeliveries, sent at the same moment as an order's first delivery
	retried    int // redeliveries after a non-200 answer
	answers    int // 200 answers
	duplicates int // 200 answers with "duplicate": true
}

// checkOrders checks exactly-once against the pods' database: every order
// delivered has exactly one shipment and one succeeded receipt naming it,
// no other order has one, and of all the 200 answers an order got (its
// first delivery, the deliberate redeliveries at once, the retries) every
// one names that shipment and at most one does not say "duplicate": true.
// The deliberate redeliveries are what can break it: the test fails when
// there were none, or when fewer of them were answered duplicate than sent.
func checkOrders(t *testing.T, db *sql.DB, phases []*phase) exactlyOnce {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	shipments, err := idsByOrder(ctx, db, `SELECT source_order_id, id FROM shipments WHERE organization_id = $1 AND source_order_id IS NOT NULL`)
	if err != nil {
		t.Fatal(err)
	}
	receipts, err := idsByOrder(ctx, db, `SELECT order_id, coalesce(shipment_id, '') FROM order_receipts WHERE organization_id = $1 AND status = 'succeeded'`)
	if err != nil {
		t.Fatal(err)
	}
	r, problems := judgeOrders(shipments, receipts, phases)
	for _, p := range problems {
		t.Error(p)
	}
	return r
}

// judgeOrders is checkOrders' verdict on the database's shipment and
// succeeded receipt ids per order and the phases' answers: the figures, and
// what breaks exactly-once.
func judgeOrders(shipments, receipts map[int64][]string, phases []*phase) (exactlyOnce, []string) {
	var r exactlyOnce
	var problems []string
	fail := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	answers := map[int64][]delivery{} // each order's 200 answers
	phaseOf := map[int64]string{}
	for _, p := range phases {
		r.atOnce += p.atOnce()
		r.retried += len(p.retries)
		for _, d := range slices.Concat(p.deliveries, p.retries) {
			phaseOf[d.order] = p.name
			if d.status == http.StatusOK {
				answers[d.order] = append(answers[d.order], d)
			}
		}
	}
	r.orders = len(phaseOf)
	for order, name := range phaseOf {
		ids := shipments[order]
		switch {
		case len(ids) == 0:
			r.lost++
			fail("order %d (%s): no shipment", order, name)
			continue
		case len(ids) > 1:
			r.duplicated++
			fail("order %d (%s): %d shipments %v", order, name, len(ids), ids)
			continue
		}
		if got := receipts[order]; len(got) != 1 || got[0] != ids[0] {
			fail("order %d (%s): succeeded receipts naming %v, want one naming the shipment %s", order, name, got, ids[0])
		}
		created := 0
		for _, d := range answers[order] {
			r.answers++
			if d.duplicate {
				r.duplicates++
			} else {
				created++
			}
			if d.shipmentID != ids[0] {
				fail("order %d (%s): a 200 answer (at once %v, retry %v, duplicate %v) names shipment %q, the database %s",
					order, name, d.atOnce, d.retry, d.duplicate, d.shipmentID, ids[0])
			}
		}
		if created > 1 {
			fail("order %d (%s): %d of its %d 200 answers say it was created, not a duplicate", order, name, created, len(answers[order]))
		}
	}
	if len(shipments) != r.orders {
		fail("%d orders have shipments, %d were delivered", len(shipments), r.orders)
	}
	// Without deliberate redeliveries nothing above could find a duplicate.
	if r.atOnce == 0 {
		fail("no order was delivered more than once at the same moment: exactly-once went untested")
	}
	if r.duplicates < r.atOnce {
		fail("%d deliberate redeliveries at once, but only %d answers said duplicate", r.atOnce, r.duplicates)
	}
	slices.Sort(problems)
	return r, problems
}

// idsByOrder runs a query of (order id, id) rows for the storefront's
// organization and groups the ids by order.
func idsByOrder(ctx context.Context, db *sql.DB, query string) (map[int64][]string, error) {
	rows, err := db.QueryContext(ctx, query, org)
	if err != nil {
		return nil, err
	}
	defer func() { _ = rows.Close() }()
	ids := map[int64][]string{}
	for rows.Next() {
		var order int64
		var id string
		if err := rows.Scan(&order, &id); err != nil {
			return nil, err
		}
		ids[order] = append(ids[order], id)
	}
	return ids, rows.Err()
}

// checkAllOn applies the prometheus-operator's published CRDs (from crdDir),
// then has the API server validate every object of the chart with every
// optional part on (strict: an unknown or duplicate field is refused),
// without keeping any.
func checkAllOn(t *testing.T, c *cluster, chartArchive, crdDir string) {
	t.Helper()
	for _, crd := range monitoringCRDs {
		c.mustKubectl("apply", "--server-side", "-f", filepath.Join(crdDir, crd.file))
		// Polled rather than `kubectl wait`, which fails while the CRD has no conditions yet.
		established := ""
		for deadline := time.Now().Add(time.Minute); established != "True" && time.Now().Before(deadline); time.Sleep(250 * time.Millisecond) {
			established, _ = c.kubectl(time.Minute, "get", "crd", crd.plural+".monitoring.coreos.com", "-o", `jsonpath={.status.conditions[?(@.type=="Established")].status}`)
			established = strings.TrimSpace(established)
		}
		if established != "True" {
			t.Fatalf("the CRD %s.monitoring.coreos.com is not Established after 1m", crd.plural)
		}
	}
	// Into the namespace "default", where the objects are new (the release runs in its own); the
	// all-on values put the dashboard in the namespace "monitoring".
	c.mustKubectl("create", "namespace", "monitoring")
	rendered := c.mustHelm(2*time.Minute, "template", release, chartArchive, "--namespace", "default", "--kube-version", kubeVersion, "-f", "../helm/testdata/all-on.yaml")
	file := filepath.Join(c.state, "all-on.yaml")
	if err := os.WriteFile(file, []byte(rendered), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := c.kubectl(2*time.Minute, "create", "--dry-run=server", "--validate=strict", "-f", file)
	if err != nil {
		t.Fatalf("the API server refuses the chart with every optional part on: %v\n%s", err, out)
	}
	kinds := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if kind, _, ok := strings.Cut(l, "/"); ok {
			kinds[kind] = true
		}
	}
	for _, want := range []string{"servicemonitor.monitoring.coreos.com", "prometheusrule.monitoring.coreos.com", "ingress.networking.k8s.io",
		"networkpolicy.networking.k8s.io", "configmap", "deployment.apps", "job.batch", "secret", "pod"} {
		if !kinds[want] {
			t.Errorf("the server-side dry run did not report a %s:\n%s", want, out)
		}
	}
}
