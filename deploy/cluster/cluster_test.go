// Package cluster_test proves the chart on a real Kubernetes: the platform
// team's day (install, upgrade, pod loss, rollback, every optional part) on a
// single-node cluster that scripts/cluster.sh brings up inside a network
// namespace of its own, with storefront deliveries flowing through the
// Service the whole time and every pod relaying its events to a NATS
// JetStream in the same namespace. See docs/deploy.md, "How the chart is
// checked".
package cluster_test

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/lib/pq" // PostgreSQL driver: the test reads the pods' database

	"github.com/acme3pl/fulfillment/deploy/image"
	"github.com/acme3pl/fulfillment/deploy/internal/testenv"
)

const (
	namespace  = "shop"
	release    = "shop"
	fullname   = "shop-fulfillment"
	database   = "fulfillment"
	org        = "org_day"
	sku        = "DAY-SOCK-01"
	apiKey     = "fk_test_ClusterDay0123456789abcdefghijklmnopqrstuvw"
	signingKey = "cluster-day-signing-key-0123456789abcdef"
	// The cluster's version (helm template, offline, would assume 1.20, which the chart refuses).
	kubeVersion = "v1.33.13"
)

// The prometheus-operator's published CRDs the optional parts are checked against, in the directory
// `scripts/tools.sh monitoring-crds` prints (fetched once, before the test).
var monitoringCRDs = []struct{ plural, file string }{
	{"servicemonitors", "monitoring.coreos.com_servicemonitors.yaml"},
	{"prometheusrules", "monitoring.coreos.com_prometheusrules.yaml"},
}

var serverSelector = "app.kubernetes.io/instance=" + release + ",app.kubernetes.io/component=server"

func TestPlatformTeamsDay(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Fatal("the cluster test needs root (network namespaces, mounts, cgroups); CI runs as root")
	}
	root := testenv.Root(t)
	for _, tool := range []string{"helm", "kube-apiserver", "coredns", "containerd"} {
		testenv.Tool(t, tool) // built or installed once, before any timing starts
	}
	crdDir := testenv.Tool(t, "monitoring-crds")
	for _, crd := range monitoringCRDs {
		if _, err := os.Stat(filepath.Join(crdDir, crd.file)); err != nil {
			t.Fatalf("scripts/tools.sh monitoring-crds printed %s, which lacks %s: %v", crdDir, crd.file, err)
		}
	}
	work := t.TempDir()
	suffix := fmt.Sprintf("%d", time.Now().UnixNano()%1_000_000_000)
	versionA, versionB := "day-a-"+suffix, "day-b-"+suffix

	// The images: two builds of the current source, stamped with two versions, and the pod sandbox's.
	// The second carries the fixture migrations of migrations/schemachange/ (the build tag
	// schemachange): the upgrade changes the schema of order_receipts, which the intake writes.
	begin := time.Now()
	for _, v := range []string{versionA, versionB} {
		tags := ""
		if v == versionB {
			tags = "schemachange"
		}
		out, err := testenv.Run(10*time.Minute, root, "make", "-s", "image", "VERSION="+v, "GO_TAGS="+tags, "IMAGE_DIR="+filepath.Join(work, v))
		if err != nil {
			t.Fatalf("make image: %v", err)
		}
		if want := "localhost/fulfillment:" + v; strings.TrimSpace(out) != want {
			t.Fatalf("make image printed %q, want %q", out, want)
		}
	}
	pauseArchive := buildPause(t, work)
	chartArchive := packageChart(t, work)
	imagesTook := time.Since(begin)

	before := snapshotHostNetwork(t)
	t.Cleanup(func() { // registered first, so it runs after the cluster's teardown
		if diff := before.diff(snapshotHostNetwork(t)); len(diff) > 0 {
			t.Errorf("the host's network namespace changed:\n%s", strings.Join(diff, "\n"))
		}
	})

	begin = time.Now()
	c := startCluster(t)
	clusterTook := time.Since(begin)
	t.Logf("cluster up in %v", clusterTook.Round(100*time.Millisecond))

	begin = time.Now()
	for _, archive := range []string{pauseArchive, filepath.Join(work, versionA, "fulfillment.tar"), filepath.Join(work, versionB, "fulfillment.tar")} {
		if out, err := runCmd(3*time.Minute, "", nil, c.env["CTR"], "--address", c.env["CONTAINERD_ADDRESS"], "-n", "k8s.io", "images", "import", archive); err != nil {
			t.Fatalf("ctr images import %s: %v\n%s", archive, err, out)
		}
	}
	db := openDB(t, c)
	c.mustKubectl("create", "namespace", namespace)
	dsn := fmt.Sprintf("postgres://postgres@%s:%s/%s?sslmode=disable", c.env["NODE_IP"], c.env["PG_PORT"], database)
	c.mustKubectl("-n", namespace, "create", "secret", "generic", fullname,
		"--from-literal=DATABASE_URL="+dsn, "--from-literal=AUTH_SIGNING_KEY="+signingKey)
	// Events on: every pod relays its outbox to the cluster's NATS (the service makes the stream).
	values := func(version string) []string {
		return []string{"--namespace", namespace, "--set", "image.tag=" + version, "--set", "image.pullPolicy=Never",
			"--set", "events.natsUrl=" + c.env["NATS_URL"], "--set", "events.stream=" + eventStream,
			"--wait", "--timeout", "4m"}
	}

	// Install: the migration Job completes before any server pod exists; two pods Ready; /readyz 200
	// through the Service; helm test passes.
	c.mustHelm(5*time.Minute, append([]string{"install", release, chartArchive}, values(versionA)...)...)
	checkMigrationFirst(t, c)
	waitServing(t, c, versionA)
	serviceURL := "http://" + strings.TrimSpace(c.mustKubectl("-n", namespace, "get", "service", fullname, "-o", "jsonpath={.spec.clusterIP}")) + ":80"
	if err := waitOK(c, serviceURL+"/readyz"); err != nil {
		t.Fatalf("GET /readyz through the Service: %v", err)
	}
	if out, err := c.helm(3*time.Minute, "test", release, "--namespace", namespace, "--logs", "--timeout", "2m"); err != nil {
		t.Fatalf("helm test: %v\n%s", err, out)
	}
	installTook := time.Since(begin)

	seed(t, c, filepath.Join(work, versionA, "fulfillment"), dsn)
	preload(t, db)
	shop := newStorefront(c, serviceURL, apiKey, time.Now().Unix()*1000)
	var phases []*phase
	run := func(name string, action func() error) {
		t.Helper()
		p, err := shop.underLoad(name, 3*time.Second, action)
		phases = append(phases, p)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if bad := p.unacceptable(); len(bad) > 0 {
			t.Errorf("%s: %d of %d deliveries not answered within %v with 200 or 503 + Retry-After:\n%s",
				name, len(bad), len(p.deliveries), deliveryDeadline, strings.Join(bad, "\n"))
		}
	}

	// Upgrade to the other image under load, its migrations (the schema change) run by the hook Job
	// while the old pods serve; two pods Ready at every moment; every pod reports the new version.
	var watch *readyWatch
	run("upgrade", func() error {
		watch = watchReady(c, versionA, versionB)
		_, err := c.helm(5*time.Minute, append([]string{"upgrade", release, chartArchive}, values(versionB)...)...)
		watch.stop()
		return err
	})
	waitServing(t, c, versionB)
	watch.check(t)
	change := checkSchemaChange(t, db, phases[len(phases)-1])

	// Pod loss: a graceful deletion, then a forced one; then the disruption budget holds.
	run("delete", func() error {
		pods := serverPods(t, c)
		if _, err := c.kubectl(time.Minute, "-n", namespace, "delete", "pod", pods[0].name, "--wait=false"); err != nil {
			return err
		}
		return waitPods(c, 2, versionB)
	})
	run("force-delete", func() error {
		pods := serverPods(t, c)
		if _, err := c.kubectl(time.Minute, "-n", namespace, "delete", "pod", pods[0].name, "--grace-period=0", "--force", "--wait=false"); err != nil {
			return err
		}
		return waitPods(c, 2, versionB)
	})
	run("evict", func() error {
		if err := waitDisruptionAllowed(c); err != nil {
			return err
		}
		pods := serverPods(t, c)
		if err := evict(c, pods[0].name); err != nil {
			return fmt.Errorf("evicting %s with the budget's disruption free: %w", pods[0].name, err)
		}
		err := evict(c, pods[1].name)
		if err == nil || !strings.Contains(err.Error(), "TooManyRequests") {
			return fmt.Errorf("evicting %s right after %s: %w; want 429 TooManyRequests (the PodDisruptionBudget)", pods[1].name, pods[0].name, err)
		}
		return waitPods(c, 2, versionB)
	})
	waitServing(t, c, versionB)

	// Rollback to the first release under load.
	run("rollback", func() error {
		_, err := c.helm(5*time.Minute, "rollback", release, "1", "--namespace", namespace, "--wait", "--timeout", "4m")
		return err
	})
	waitServing(t, c, versionA)

	// Exactly once, in the database: each order has one shipment and one succeeded receipt, and the
	// answers to its deliveries name that shipment, all but one as a duplicate.
	once := checkOrders(t, db, phases)

	// Exactly once, on the stream: once the relays have emptied the outbox, each of those shipments
	// has one shipment.created by id, naming its order, and no other shipment has one.
	published := checkEvents(t, c, db)

	// Every optional part on, accepted by the real API server with strict field validation.
	begin = time.Now()
	checkAllOn(t, c, chartArchive, crdDir)
	allOnTook := time.Since(begin)

	total, within, statuses := 0, 0, map[string]int{}
	var phaseTimes []string
	for _, p := range phases {
		total += len(p.deliveries)
		for _, d := range p.deliveries {
			if d.acceptable() {
				within++
			}
		}
		for k, v := range p.statuses() {
			statuses[k] += v
		}
		phaseTimes = append(phaseTimes, fmt.Sprintf("%s %.0fs (%d orders, %d at once, retried %d)",
			p.name, p.took.Seconds(), p.orders(), p.atOnce(), len(p.retries)))
	}
	summary := fmt.Sprintf("cluster day: %d orders at %d/s, %d deliveries (%d of them deliberate redeliveries at once), "+
		"%d answered within 5 s as promised, statuses %s, retried %d; %d answers 200, %d of them duplicate; "+
		"in the database: lost %d, duplicated %d; "+
		"on the stream: %d shipment.created for %d shipments, %d of them exactly once, outbox drained %.1fs after the rollback; "+
		"schema change in the upgrade: %d preloaded receipts backfilled (%d left NULL), index valid %v, "+
		"filled and indexed in %.1fs while %d deliveries were sent, %d of them answered within 5 s, "+
		"%d pod samples during it with at least 2 Ready (%d while only the old pods existed); "+
		"images %.0fs, cluster up %.1fs, install+test %.0fs, %s, all-on strict %.0fs",
		once.orders, deliveryRate, total, once.atOnce, within, formatStatuses(statuses), once.retried, once.answers, once.duplicates,
		once.lost, once.duplicated,
		published.events, published.shipments, published.once, published.drained.Seconds(),
		change.filled, change.null, change.indexValid, change.filling.to.Sub(change.filling.from).Seconds(), change.during, change.within,
		watch.samples, watch.oldOnly,
		imagesTook.Seconds(), clusterTook.Seconds(), installTook.Seconds(), strings.Join(phaseTimes, ", "), allOnTook.Seconds())
	t.Log(summary)
	if err := os.MkdirAll(filepath.Join(root, ".tmp"), 0o755); err == nil {
		_ = os.WriteFile(filepath.Join(root, ".tmp", "cluster-day.txt"), []byte(summary+"\n"), 0o644)
	}
}

// buildPause makes the pod sandbox image (nothing can be pulled): a static
// program that waits for a signal, in an image of its own.
func buildPause(t *testing.T, work string) string {
	t.Helper()
	bin := filepath.Join(work, "pause")
	cmd, argv := "go", []string{"build", "-trimpath", "-o", bin, "./testdata/pause"}
	if out, err := runCmd(5*time.Minute, ".", []string{"CGO_ENABLED=0"}, cmd, argv...); err != nil {
		t.Fatalf("building pause: %v\n%s", err, out)
	}
	archive := filepath.Join(work, "pause.tar")
	if _, err := image.Build(image.Options{Binary: bin, CACerts: "/etc/ssl/certs/ca-certificates.crt", Repository: "localhost/fulfillment-test/pause",
		Version: "1", Created: time.Unix(0, 0)}, archive); err != nil {
		t.Fatalf("pause image: %v", err)
	}
	return archive
}

// packageChart is `helm package`: the release is installed from the archive,
// as a platform team gets it.
func packageChart(t *testing.T, work string) string {
	t.Helper()
	dir := filepath.Join(work, "chart")
	out, err := testenv.Run(2*time.Minute, ".", testenv.Tool(t, "helm"), "package", "../helm/fulfillment", "--destination", dir)
	if err != nil {
		t.Fatalf("helm package: %v\n%s", err, out)
	}
	archives, _ := filepath.Glob(filepath.Join(dir, "fulfillment-*.tgz"))
	if len(archives) != 1 {
		t.Fatalf("helm package wrote %v", archives)
	}
	return archives[0]
}

// openDB makes the pods' database and returns a connection to it, through
// the private PostgreSQL's socket.
func openDB(t *testing.T, c *cluster) *sql.DB {
	t.Helper()
	admin, err := sql.Open("postgres", fmt.Sprintf("host=%s user=postgres dbname=postgres sslmode=disable", c.env["PG_SOCKET_DIR"]))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = admin.Close() }()
	if _, err := admin.Exec("CREATE DATABASE " + database); err != nil {
		t.Fatalf("creating the pods' database: %v", err)
	}
	db, err := sql.Open("postgres", fmt.Sprintf("host=%s user=postgres dbname=%s sslmode=disable", c.env["PG_SOCKET_DIR"], database))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// seed loads the storefront's organization, warehouse, product and API key
// with `fulfillment seed`, run inside the cluster's network namespace.
func seed(t *testing.T, c *cluster, bin, dsn string) {
	t.Helper()
	doc := map[string]any{
		"organizations": []any{map[string]any{"id": org, "name": "Day Shop", "defaultWarehouseId": "wh_day"}},
		"warehouses": []any{map[string]any{
			"id": "wh_day", "name": "Day DC", "description": nil, "active": true, "tags": []string{}, "organizations": []string{org},
			"address": map[string]any{"name": "Day DC", "line1": "1 Dock St", "line2": "", "district": "", "city": "Newark",
				"state": "NJ", "countryCode": "US", "postalCode": "07102"},
			"contact": map[string]any{"name": "Ops", "email": "ops@example.com", "phoneNumber": "+1 555 0100", "fax": ""},
		}},
		"products": []any{map[string]any{"id": "prod_day_1", "organizationId": org, "sku": sku, "name": "Merino Crew Sock"}},
		"apiKeys": []any{map[string]any{"id": "key_day", "organizationId": org, "key": apiKey,
			"scopes": []string{"shipments", "inventory"}, "revoked": false}},
	}
	b, _ := json.Marshal(doc)
	file := filepath.Join(t.TempDir(), "fixture.json")
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	name, argv := c.inNS(bin, "seed", "--file", file)
	if out, err := runCmd(2*time.Minute, "", []string{"DATABASE_URL=" + dsn, "AUTH_SIGNING_KEY=" + signingKey, "OTEL_TRACES_EXPORTER=none"}, name, argv...); err != nil {
		t.Fatalf("fulfillment seed: %v\n%s", err, out)
	}
}

// checkMigrationFirst: the migration hook Job completed (its event stays
// after the hook is deleted) no later than the first server pod was made.
func checkMigrationFirst(t *testing.T, c *cluster) {
	t.Helper()
	var events struct {
		Items []struct {
			Reason         string    `json:"reason"`
			LastTimestamp  time.Time `json:"lastTimestamp"`
			EventTime      time.Time `json:"eventTime"` // set instead by recorders of the events.k8s.io API
			InvolvedObject struct {
				Kind, Name string
			} `json:"involvedObject"`
		} `json:"items"`
	}
	if err := json.Unmarshal([]byte(c.mustKubectl("-n", namespace, "get", "events", "-o", "json")), &events); err != nil {
		t.Fatal(err)
	}
	var completed time.Time
	for _, e := range events.Items {
		if e.InvolvedObject.Kind == "Job" && e.InvolvedObject.Name == fullname+"-migrate" && e.Reason == "Completed" {
			completed = e.LastTimestamp
			if e.EventTime.After(completed) {
				completed = e.EventTime
			}
		}
	}
	if completed.IsZero() {
		t.Fatalf("no Completed event of the migration Job %s-migrate", fullname)
	}
	// Pods' times are whole seconds: compare whole seconds.
	completed = completed.Truncate(time.Second)
	for _, p := range serverPods(t, c) {
		if p.created.Before(completed) {
			t.Errorf("server pod %s was made at %v, before the migration Job completed at %v", p.name, p.created, completed)
		}
	}
}
