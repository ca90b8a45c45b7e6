package main

// The audit log through the real binary (docs/audit.md): operator commands
// with and without --actor, `audit list` and its filters, and the
// operator.action event on the stream.

import (
	"context"
	"encoding/json"
	"os/user"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/adapters/postgres/pgtest"
	"github.com/acme3pl/fulfillment/cmd/fulfillment/internal/e2e"
)

const auditOrg = "org_e2e_audit"

// auditLine is one line of `audit list`, decoded by the test's own type.
type auditLine struct {
	ID    string `json:"id"`
	At    string `json:"at"`
	Actor struct {
		Subject string `json:"subject"`
		Email   string `json:"email"`
	} `json:"actor"`
	Action         string          `json:"action"`
	OrganizationID string          `json:"organizationId"`
	Input          json.RawMessage `json:"input"`
	Outcome        string          `json:"outcome"`
	TraceID        string          `json:"traceId"`
}

func (l auditLine) String() string {
	return l.Action + " " + l.OrganizationID + " " + l.Actor.Subject + " " + l.Outcome
}

// auditList runs `audit list` with args and decodes its lines.
func auditList(t *testing.T, env []string, args ...string) []auditLine {
	t.Helper()
	out := e2e.MustCLI(t, env, append([]string{"audit", "list"}, args...)...)
	var lines []auditLine
	for _, s := range strings.Split(strings.TrimSpace(out), "\n") {
		if s == "" {
			continue
		}
		var l auditLine
		if err := json.Unmarshal([]byte(s), &l); err != nil {
			t.Fatalf("audit list printed %q: %v", s, err)
		}
		lines = append(lines, l)
	}
	return lines
}

func seedAuditOrg(t *testing.T, dsn string) {
	t.Helper()
	card := e2e.BillE2ECard(time.Now().UTC().Format("2006-01") + "-01")
	card["organizationId"] = auditOrg
	e2e.SeedFixture(t, dsn, map[string]any{
		"organizations": []any{map[string]any{"id": auditOrg, "name": "Audited"}},
		"warehouses":    []any{e2e.FixtureWarehouse("wh_e2e_audit", "Audited DC", true, auditOrg)},
		"rateCards":     []any{card},
	})
}

func strs(lines []auditLine) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = l.String()
	}
	return out
}

func TestAuditListOfOperatorCommands(t *testing.T) {
	dsn := e2e.ScratchDatabase(t, true)
	seedAuditOrg(t, dsn)
	env := e2e.BaseEnv(dsn)
	u, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	me := "cli:" + u.Username

	charge := []string{"charges", "add", "--org", auditOrg, "--reference", "credit-1", "--title", "Goodwill",
		"--quantity", "1", "--unit-cost", "-5000"}
	e2e.MustCLI(t, env, append(charge, "--actor", "alice")...)
	e2e.MustCLI(t, env, charge...) // again, without --actor: unchanged
	other := append(slices.Clone(charge[:len(charge)-1]), "-6000", "--actor", "alice")
	if r := e2e.RunCLI(t, env, other...); r.Code != 1 {
		t.Fatalf("charges add with other content: exit %d (%s), want 1", r.Code, r.Stderr)
	}
	e2e.MustCLI(t, env, "orgs", "limit", "--org", auditOrg, "--rate", "50/s", "--actor", "bob")
	key := strings.TrimSpace(e2e.MustCLI(t, env, "apikey", "create", "--org", auditOrg, "--scopes", "shipments", "--name", "shop", "--actor", "alice"))
	e2e.MustCLI(t, env, "orders", "replay", "--org", auditOrg, "--all-failed", "--actor", "bob")
	e2e.MustCLI(t, env, "billing", "close", "--org", auditOrg, "--actor", "bob")
	if r := e2e.RunCLI(t, env, "invoices", "status", "--id", "inv_nope", "--to", "paid"); r.Code != 1 {
		t.Fatalf("invoices status of an unknown invoice: exit %d, want 1", r.Code)
	}

	all := auditList(t, env)
	// The seed's card is not an operator action: no record of it.
	want := []string{
		"charges.add " + auditOrg + " alice done",
		"charges.add " + auditOrg + " " + me + " unchanged",
		"charges.add " + auditOrg + " alice reference_conflict",
		"orgs.limit " + auditOrg + " bob done",
		"apikeys.create " + auditOrg + " alice done",
		"orders.replay " + auditOrg + " bob unchanged",
		"billing.close " + auditOrg + " bob done",
		"invoices.status  " + me + " not_found",
	}
	if got := strs(all); !slices.Equal(got, want) {
		t.Fatalf("audit list:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for i, l := range all {
		if !strings.HasPrefix(l.ID, "aud_") || l.At == "" || (i > 0 && l.At < all[i-1].At) {
			t.Errorf("record %d: id %q at %q, want IDs and times oldest first", i, l.ID, l.At)
		}
	}
	var in map[string]any
	if err := json.Unmarshal(all[2].Input, &in); err != nil || in["reference"] != "credit-1" || in["unitCost"] != float64(-6000) {
		t.Errorf("the refused charge's input %s", all[2].Input)
	}
	if strings.Contains(string(all[4].Input), key) || !strings.Contains(string(all[4].Input), `"shop"`) {
		t.Errorf("the key's record %s: want its name and scopes, never its secret", all[4].Input)
	}

	if got := strs(auditList(t, env, "--actor", "bob")); !slices.Equal(got, []string{want[3], want[5], want[6]}) {
		t.Errorf("--actor bob: %v", got)
	}
	if got := auditList(t, env, "--org", auditOrg); len(got) != 7 {
		t.Errorf("--org: %v, want the organization's 7", strs(got))
	}
	if got := auditList(t, env, "--org", "org_other"); len(got) != 0 {
		t.Errorf("--org of another: %v", strs(got))
	}
	if got := strs(auditList(t, env, "--since", all[6].At)); !slices.Equal(got, want[6:]) {
		t.Errorf("--since %s: %v, want %v", all[6].At, got, want[6:])
	}
	if got := auditList(t, env, "--since", time.Now().Add(time.Hour).UTC().Format(time.RFC3339)); len(got) != 0 {
		t.Errorf("--since in an hour: %v", strs(got))
	}

	for _, bad := range [][]string{
		{"audit", "list", "--since", "yesterday"},
		{"audit", "list", "--bogus"},
		{"audit", "list", "extra"},
		{"audit"},
	} {
		if r := e2e.RunCLI(t, env, bad...); r.Code != 2 || r.Stdout != "" {
			t.Errorf("%v: exit %d, stdout %q; want 2", bad, r.Code, r.Stdout)
		}
	}
	// The table refuses to change a record, whoever asks.
	if _, err := pgtest.Open(t, dsn).ExecContext(context.Background(), `DELETE FROM audit_records`); err == nil {
		t.Error("DELETE FROM audit_records accepted")
	}
	if got := auditList(t, env); len(got) != len(want) {
		t.Errorf("%d records after the refused delete, want %d", len(got), len(want))
	}
}

// An operator's command, run while the servers record events, writes its
// record as the event operator.action: the record as `audit list` prints it.
func TestOperatorActionEventReachesTheStream(t *testing.T) {
	dsn := e2e.ScratchDatabase(t, true)
	seedAuditOrg(t, dsn)
	broker := startRecordingServer(t, dsn)
	env := e2e.BaseEnv(dsn)
	e2e.MustCLI(t, env, "charges", "add", "--org", auditOrg, "--reference", "fee-1", "--title", "Relabelling",
		"--quantity", "2", "--unit-cost", "125", "--actor", "carol")
	events := readStream(t, broker.URL(), 1)
	checkEnvelope(t, events)
	recs := auditList(t, env)
	if len(events) != 1 || len(recs) != 1 {
		t.Fatalf("%d events, %d records; want 1 of each", len(events), len(recs))
	}
	e := events[0]
	var data auditLine
	if err := json.Unmarshal(e.Event.Data, &data); err != nil {
		t.Fatal(err)
	}
	if e.Event.Type != "operator.action" || e.Subject != "fulfillment.sandbox.operator.action" || e.Event.Subject != recs[0].ID ||
		e.Event.OrganizationID != auditOrg {
		t.Fatalf("event %s %s %s on %s, want operator.action of record %s", e.Event.Type, e.Event.Subject, e.Event.OrganizationID, e.Subject, recs[0].ID)
	}
	var gotInput, wantInput map[string]any
	if err := json.Unmarshal(data.Input, &gotInput); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(recs[0].Input, &wantInput); err != nil {
		t.Fatal(err)
	}
	in, _ := json.Marshal(gotInput)
	wantIn, _ := json.Marshal(wantInput)
	r := recs[0]
	if data.ID != r.ID || data.At != r.At || data.Actor != r.Actor || data.Action != r.Action || data.OrganizationID != r.OrganizationID ||
		data.Outcome != r.Outcome || data.TraceID != r.TraceID || string(in) != string(wantIn) || data.String() != "charges.add "+auditOrg+" carol done" || len(data.TraceID) != 32 {
		t.Fatalf("event data %+v %s, want the record %+v %s, with its trace ID", data, in, recs[0], wantIn)
	}
}
