package backoffice

import (
	"strings"
	"testing"

	"github.com/acme3pl/fulfillment/cmd/fulfillment/internal/e2e"
)

// cliUsageFixture: org_e2e_cli_a, served by the active wh_e2e_cli_on; the
// inactive wh_e2e_cli_off.
var seedCLIUsage = e2e.SeedFixtureOnce("cli usage", func() map[string]any {
	return map[string]any{
		"organizations": []any{e2e.FixtureOrg("org_e2e_cli_a", "CLI A")},
		"warehouses": []any{
			e2e.FixtureWarehouse("wh_e2e_cli_on", "CLI On", true, "org_e2e_cli_a"),
			e2e.FixtureWarehouse("wh_e2e_cli_off", "CLI Off", false, "org_e2e_cli_a"),
		},
	}
})

// cliCase is one command line and what it must end with: its exit status
// and a piece of its one line on stderr; nothing on stdout unless it
// succeeded.
type cliCase struct {
	name   string
	args   []string
	code   int
	stderr string
}

func runCLICases(t *testing.T, cases []cliCase) {
	t.Helper()
	env := e2e.BaseEnv(e2e.TestDSN)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e2e.RunCLI(t, env, c.args...)
			if r.Code != c.code || !strings.Contains(r.Stderr, c.stderr) {
				t.Fatalf("fulfillment %s: exit %d, stderr %q; want exit %d and %q",
					strings.Join(c.args, " "), r.Code, r.Stderr, c.code, c.stderr)
			}
			if c.code != 0 && r.Stdout != "" {
				t.Fatalf("fulfillment %s failed but printed %q on stdout", strings.Join(c.args, " "), r.Stdout)
			}
			if c.code == 1 && strings.Count(r.Stderr, "\n") != 1 {
				t.Fatalf("fulfillment %s: stderr is not one line: %q", strings.Join(c.args, " "), r.Stderr)
			}
		})
	}
}

// TestTokenMintUsage: token mint prints a token only for scopes that token
// can use, of an organization that exists or a warehouse that is active. A
// malformed command line is bad usage (2); an organization or warehouse the
// database does not know, or an inactive warehouse, a failure (1).
func TestTokenMintUsage(t *testing.T) {
	seedCLIUsage(t)
	runCLICases(t, []cliCase{
		{"organization's token", []string{"token", "mint", "--org", "org_e2e_cli_a", "--scopes", "locations,invoices"}, 0, ""},
		{"warehouse's token", []string{"token", "mint", "--warehouse", "wh_e2e_cli_on", "--scopes", "warehouse"}, 0, ""},

		{"no scopes", []string{"token", "mint", "--org", "org_e2e_cli_a"}, 2, "needs --scopes"},
		{"empty scopes", []string{"token", "mint", "--org", "org_e2e_cli_a", "--scopes", " , "}, 2, "needs --scopes"},
		{"unknown scope", []string{"token", "mint", "--org", "org_e2e_cli_a", "--scopes", "locations,bogus"}, 2, `"bogus" is not a scope`},
		{"warehouse scope on an organization", []string{"token", "mint", "--org", "org_e2e_cli_a", "--scopes", "warehouse"}, 2, `"warehouse" is not a scope`},
		{"warehouse without scopes", []string{"token", "mint", "--warehouse", "wh_e2e_cli_on"}, 2, "needs --scopes warehouse"},
		{"warehouse with an organization's scope", []string{"token", "mint", "--warehouse", "wh_e2e_cli_on", "--scopes", "warehouse,locations"}, 2, `"locations" is not a scope of a warehouse's token`},
		{"organization not an ID", []string{"token", "mint", "--org", "org a", "--scopes", "locations"}, 2, "is not an ID"},

		{"unknown organization", []string{"token", "mint", "--org", "org_e2e_cli_none", "--scopes", "locations"}, 1, `organization "org_e2e_cli_none": not found`},
		{"unknown warehouse", []string{"token", "mint", "--warehouse", "wh_e2e_cli_none", "--scopes", "warehouse"}, 1, `warehouse "wh_e2e_cli_none": not found or inactive`},
		{"inactive warehouse", []string{"token", "mint", "--warehouse", "wh_e2e_cli_off", "--scopes", "warehouse"}, 1, `warehouse "wh_e2e_cli_off": not found or inactive`},
	})
}

// TestAPIKeyCreateUsage: a key needs scopes an API key holds (else 2,
// nothing stored) and an organization that exists (else 1); listing the keys
// of an unknown organization fails too rather than printing an empty table.
func TestAPIKeyCreateUsage(t *testing.T) {
	seedCLIUsage(t)
	keys := func() int {
		return e2e.QueryValue[int](t, `SELECT count(*) FROM api_keys WHERE organization_id = 'org_e2e_cli_a'`)
	}
	before := keys()
	runCLICases(t, []cliCase{
		{"no scopes", []string{"apikey", "create", "--org", "org_e2e_cli_a"}, 2, "apikey create needs --org ID --scopes"},
		{"empty scopes", []string{"apikey", "create", "--org", "org_e2e_cli_a", "--scopes", ","}, 2, "needs --scopes"},
		{"unknown scope", []string{"apikey", "create", "--org", "org_e2e_cli_a", "--scopes", "shipments,bogus"}, 2, `"bogus" is not a scope`},
		{"a warehouse's scope", []string{"apikey", "create", "--org", "org_e2e_cli_a", "--scopes", "warehouse"}, 2, `"warehouse" is not a scope`},
		{"organization not an ID", []string{"apikey", "create", "--org", "org'a", "--scopes", "shipments"}, 2, "is not an ID"},
		{"unknown organization", []string{"apikey", "create", "--org", "org_e2e_cli_none", "--scopes", "shipments"}, 1, `organization "org_e2e_cli_none": not found`},
		{"list of an unknown organization", []string{"apikey", "list", "--org", "org_e2e_cli_none"}, 1, `organization "org_e2e_cli_none": not found`},
	})
	if n := keys(); n != before {
		t.Fatalf("%d keys of org_e2e_cli_a after refused commands, want %d", n, before)
	}
	if r := e2e.RunCLI(t, e2e.BaseEnv(e2e.TestDSN), "apikey", "create", "--org", "org_e2e_cli_a", "--scopes", "shipments"); r.Code != 0 || keys() != before+1 {
		t.Fatalf("apikey create: exit %d %s", r.Code, r.Stderr)
	}
}

// TestOrdersUsage: the orders commands on an unknown organization fail (1)
// rather than printing nothing or an empty replay; malformed flags are 2.
func TestOrdersUsage(t *testing.T) {
	seedCLIUsage(t)
	runCLICases(t, []cliCase{
		{"list of an unknown organization", []string{"orders", "list", "--org", "org_e2e_cli_none"}, 1, `orders list: organization "org_e2e_cli_none": not found`},
		{"replay all of an unknown organization", []string{"orders", "replay", "--org", "org_e2e_cli_none", "--all-failed"}, 1, `orders replay: organization "org_e2e_cli_none": not found`},
		{"replay one of an unknown organization", []string{"orders", "replay", "--org", "org_e2e_cli_none", "--order", "42"}, 1, `orders replay: organization "org_e2e_cli_none": not found`},
		{"list, organization not an ID", []string{"orders", "list", "--org", "org e2e"}, 2, "is not an ID"},
		{"replay, organization not an ID", []string{"orders", "replay", "--org", "org e2e", "--all-failed"}, 2, "is not an ID"},
		{"replay, order not a number", []string{"orders", "replay", "--org", "org_e2e_cli_a", "--order", "4x"}, 2, "--order must be a positive 64-bit integer"},
		{"replay, workers not a number", []string{"orders", "replay", "--org", "org_e2e_cli_a", "--all-failed", "--workers", "two"}, 2, "invalid value"},
		{"list, unknown status", []string{"orders", "list", "--org", "org_e2e_cli_a", "--status", "lost"}, 2, "invalid status"},
		{"list of a known organization", []string{"orders", "list", "--org", "org_e2e_cli_a"}, 0, ""},
	})
}
