package main

// Whether events are recorded is the deployment's (docs/events.md): an
// operator's command run with an environment that lacks EVENTS_NATS_URL
// records its events when the servers run with it, and records nothing in
// a deployment that never set it. Each test has a database of its own: the
// deployment's word is one per database.

import (
	"context"
	"regexp"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/adapters/broker/natstest"
	"github.com/acme3pl/fulfillment/adapters/postgres/pgtest"
	"github.com/acme3pl/fulfillment/cmd/fulfillment/internal/e2e"
)

const deployOrg = "org_e2e_deploy"

// seedDeployment seeds an organization with a card from the first of the
// month (its minimum makes the close finalize an invoice) in dsn.
func seedDeployment(t *testing.T, dsn string) {
	t.Helper()
	card := e2e.BillE2ECard(time.Now().UTC().Format("2006-01") + "-01")
	card["organizationId"] = deployOrg
	e2e.SeedFixture(t, dsn, map[string]any{
		"organizations": []any{map[string]any{"id": deployOrg, "name": "Deployment"}},
		"warehouses":    []any{e2e.FixtureWarehouse("wh_e2e_deploy", "Deployment DC", true, deployOrg)},
		"rateCards":     []any{card},
	})
}

// operatorCommands runs `billing close` and `invoices status` with env, as
// an operator from a shell, and returns the invoice they finalized and
// marked paid.
func operatorCommands(t *testing.T, env []string) string {
	t.Helper()
	out := e2e.MustCLI(t, env, "billing", "close", "--org", deployOrg)
	m := regexp.MustCompile(`^finalized INV-\d{4}-\d{6} (inv_\w+) `).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("billing close printed %q, want an invoice finalized", out)
	}
	e2e.MustCLI(t, env, "invoices", "status", "--id", m[1], "--to", "paid")
	return m[1]
}

// dbValue runs query, one row of one column, on dsn.
func dbValue[T any](t *testing.T, dsn, query string) T {
	t.Helper()
	var v T
	if err := pgtest.Open(t, dsn).QueryRowContext(context.Background(), query).Scan(&v); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return v
}

const recordingQuery = "SELECT coalesce((SELECT recording FROM event_recording), false)"

// startRecordingServer starts a private nats-server and a server on dsn
// with EVENTS_NATS_URL, and waits until the server has said, in the
// database, that the deployment records events.
func startRecordingServer(t *testing.T, dsn string) *natstest.Server {
	t.Helper()
	broker := natstest.Start(t)
	e2e.StartServer(t, e2e.BaseEnv(dsn, "EVENTS_NATS_URL="+broker.URL()))
	deadline := time.Now().Add(10 * time.Second)
	for !dbValue[bool](t, dsn, recordingQuery) {
		if time.Now().After(deadline) {
			t.Fatal("the server with EVENTS_NATS_URL did not say that events are recorded within 10 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	return broker
}

// A server runs with EVENTS_NATS_URL; the operator's commands run from a
// shell whose environment lacks it: their invoice.finalized and
// invoice.status_changed reach the stream, published by the server's relay.
func TestEventsOfOperatorCommandsWithoutTheBrokersURL(t *testing.T) {
	dsn := e2e.ScratchDatabase(t, true)
	seedDeployment(t, dsn)
	broker := startRecordingServer(t, dsn)

	inv := operatorCommands(t, e2e.BaseEnv(dsn))
	// Each command's change, and its audit record (operator.action).
	events := readStream(t, broker.URL(), 4)
	checkEnvelope(t, events)
	var got, actions []string
	for _, m := range events {
		if m.Event.Type == "operator.action" {
			actions = append(actions, m.Event.OrganizationID)
			continue
		}
		got = append(got, m.Event.Type+" "+m.Event.Subject+" "+m.Event.OrganizationID)
	}
	if len(actions) != 2 || actions[0] != deployOrg || actions[1] != deployOrg {
		t.Fatalf("operator.action events of %v, want two of %s", actions, deployOrg)
	}
	want := []string{"invoice.finalized " + inv + " " + deployOrg, "invoice.status_changed " + inv + " " + deployOrg}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("stream %v, want %v", got, want)
	}
	deadline := time.Now().Add(10 * time.Second)
	for dbValue[int](t, dsn, "SELECT count(*) FROM event_outbox") != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the outbox is not empty 10 s after the events were published")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A deployment that never set EVENTS_NATS_URL: its servers and the same
// commands leave the outbox empty.
func TestNoEventsInADeploymentWithoutTheBroker(t *testing.T) {
	dsn := e2e.ScratchDatabase(t, true)
	seedDeployment(t, dsn)
	e2e.StartServer(t, e2e.BaseEnv(dsn))
	operatorCommands(t, e2e.BaseEnv(dsn))
	if n := dbValue[int](t, dsn, "SELECT count(*) FROM event_outbox"); n != 0 {
		t.Fatalf("%d events in the outbox of a deployment without a broker", n)
	}
	if dbValue[bool](t, dsn, recordingQuery) {
		t.Fatal("the deployment without a broker says that events are recorded")
	}
}
