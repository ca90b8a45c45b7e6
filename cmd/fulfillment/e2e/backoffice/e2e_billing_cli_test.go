package backoffice

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/cmd/fulfillment/internal/e2e"
)

// The exit statuses of billing's commands (docs/billing.md): a value not of
// its flag's form is bad usage (2, a line naming the flag, nothing done); a
// well-formed request the rules or the state refuse exits 1 with one line.

const billCLIOrg = "org_e2e_billcli"

var seedBillCLI = e2e.SeedFixtureOnce("billing CLI", func() map[string]any {
	card := e2e.BillE2ECard(time.Now().UTC().Format("2006-01") + "-01")
	card["organizationId"] = billCLIOrg
	return map[string]any{
		"organizations": []any{e2e.FixtureOrg(billCLIOrg, "Billing CLI")},
		"rateCards":     []any{card},
	}
})

// billCLIWant runs the command and checks its exit status and that the
// first line of stderr holds every one of want.
func billCLIWant(t *testing.T, code int, want []string, args ...string) e2e.Result {
	t.Helper()
	r := e2e.RunCLI(t, e2e.BaseEnv(e2e.TestDSN), args...)
	first, _, _ := strings.Cut(r.Stderr, "\n")
	if r.Code != code {
		t.Errorf("fulfillment %s: exit %d, want %d (%s)", strings.Join(args, " "), r.Code, code, first)
		return r
	}
	for _, w := range want {
		if !strings.Contains(first, w) {
			t.Errorf("fulfillment %s: stderr %q does not say %q", strings.Join(args, " "), first, w)
		}
	}
	return r
}

func billCLICharges(t *testing.T, ref string) int {
	t.Helper()
	return e2e.QueryValue[int](t, `SELECT count(*) FROM billing_charges WHERE organization_id = ? AND fee = 'operator' AND source_id = ?`,
		billCLIOrg, ref)
}

func TestBillingCLIExitStatuses(t *testing.T) {
	seedBillCLI(t)
	add := func(ref string, extra ...string) []string {
		return append([]string{"charges", "add", "--org", billCLIOrg, "--reference", ref, "--title", "Handling"}, extra...)
	}

	// Bad usage: 2, nothing written.
	usage := []struct {
		args []string
		says []string
	}{
		{add("U-1", "--quantity", "1.2345", "--unit-cost", "100"), []string{"--quantity", "1.2345"}},
		{add("U-2", "--quantity", "one", "--unit-cost", "100"), []string{"--quantity"}},
		{add("U-3", "--quantity", "-1", "--unit-cost", "100"), []string{"--quantity"}},
		{add("U-4", "--quantity", "0", "--unit-cost", "100"), []string{"--quantity"}},
		{add("U-5", "--quantity", "1", "--unit-cost", "1.5"), []string{"--unit-cost", "1.5"}},
		{add("U-6", "--quantity", "1", "--unit-cost", "0"), []string{"--unit-cost"}},
		{add("U-7", "--quantity", "1", "--unit-cost", "100", "--date", "2026-13-01"), []string{"--date", "2026-13-01"}},
		{add("U-8", "--quantity", "1", "--unit-cost", "100", "--date", "yesterday"), []string{"--date"}},
		{add("U-9", "--quantity", "1"), []string{"charges add needs"}},
		{add("U-10", "--quantity", "1", "--unit-cost", "100", "--colour", "red"), []string{"flag provided but not defined"}},
		{[]string{"invoices", "status", "--id", "inv_nope", "--to", "bogus"}, []string{"--to", "bogus"}},
		{[]string{"invoices", "status", "--id", "inv_nope"}, []string{"invoices status needs"}},
		{[]string{"invoices", "preview"}, []string{"invoices preview needs"}},
		{[]string{"billing", "close", "--org"}, []string{"billing close"}},
		{[]string{"billing", "run", "now"}, []string{"billing run takes no arguments"}},
		{[]string{"rates", "set", "--org", billCLIOrg}, []string{"rates set needs"}},
	}
	for _, u := range usage {
		billCLIWant(t, 2, u.says, u.args...)
	}
	for i := 1; i <= 10; i++ {
		if n := billCLICharges(t, "U-"+strconv.Itoa(i)); n != 0 {
			t.Errorf("U-%d: %d charges written by a usage mistake", i, n)
		}
	}

	// Well-formed, refused by the rules or the state: 1, nothing written.
	billCLIWant(t, 1, []string{"date", "0001-01-01"}, add("R-1", "--quantity", "1", "--unit-cost", "100", "--date", "0001-01-01")...)
	billCLIWant(t, 1, []string{"date"}, add("R-2", "--quantity", "1", "--unit-cost", "100", "--date", "2999-01-01")...)
	billCLIWant(t, 1, []string{"past the bounds"}, add("R-3", "--quantity", "1000000000", "--unit-cost", "100000000000")...)
	billCLIWant(t, 1, []string{"quantity"}, add("R-4", "--quantity", "1000000001", "--unit-cost", "1")...)
	for _, ref := range []string{"R-1", "R-2", "R-3", "R-4"} {
		if n := billCLICharges(t, ref); n != 0 {
			t.Errorf("%s: %d charges written by a refused request", ref, n)
		}
	}
	billCLIWant(t, 1, nil, "charges", "add", "--org", "org_no_such_org", "--reference", "X", "--title", "T", "--quantity", "1", "--unit-cost", "1")
	billCLIWant(t, 1, nil, "rates", "set", "--org", billCLIOrg, "--file", filepath.Join(t.TempDir(), "missing.json"))
	bad := filepath.Join(t.TempDir(), "card.json")
	if err := os.WriteFile(bad, []byte(`{"organizationId": "`+billCLIOrg+`", "effectiveFrom": "2026-02-30"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	billCLIWant(t, 1, []string{"effectiveFrom"}, "rates", "set", "--org", billCLIOrg, "--file", bad)

	// A reference: the same content again is unchanged (0, nothing added),
	// other content a reference_conflict naming it (1).
	billCLIWant(t, 0, nil, add("REF-1", "--quantity", "2", "--unit-cost", "150", "--description", "2 pallets")...)
	if r := billCLIWant(t, 0, nil, add("REF-1", "--quantity", "2", "--unit-cost", "150", "--description", "2 pallets")...); !strings.Contains(r.Stdout, "unchanged") {
		t.Errorf("the same charge again printed %q", r.Stdout)
	}
	billCLIWant(t, 1, []string{"reference_conflict", "REF-1"}, add("REF-1", "--quantity", "3", "--unit-cost", "150")...)
	billCLIWant(t, 1, []string{"reference_conflict", "REF-1"}, add("REF-1", "--quantity", "2", "--unit-cost", "150", "--description", "3 pallets")...)
	if n := billCLICharges(t, "REF-1"); n != 1 {
		t.Errorf("REF-1: %d charges, want 1", n)
	}

	// A transition the rules do not allow: 1; an unknown invoice: 1.
	out := billCLIWant(t, 0, nil, "billing", "close", "--org", billCLIOrg).Stdout
	m := regexp.MustCompile(`finalized (INV-\d{4}-\d{6}) (\S+) `).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("billing close printed %q", out)
	}
	billCLIWant(t, 1, []string{"unpaid", "refunded"}, "invoices", "status", "--id", m[2], "--to", "refunded")
	billCLIWant(t, 1, nil, "invoices", "status", "--id", "inv_no_such_invoice", "--to", "paid")
	billCLIWant(t, 0, nil, "invoices", "status", "--id", m[2], "--to", "paid")
}
