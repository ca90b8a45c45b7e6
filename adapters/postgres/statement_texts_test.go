package postgres_test

import (
	"flag"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/acme3pl/fulfillment/adapters/postgres"
	pgaccess "github.com/acme3pl/fulfillment/adapters/postgres/access"
	pgbilling "github.com/acme3pl/fulfillment/adapters/postgres/billing"
	pgfixture "github.com/acme3pl/fulfillment/adapters/postgres/fixture"
	pgintake "github.com/acme3pl/fulfillment/adapters/postgres/intake"
	pginvoicing "github.com/acme3pl/fulfillment/adapters/postgres/invoicing"
	pgoperator "github.com/acme3pl/fulfillment/adapters/postgres/operator"
	pgshipping "github.com/acme3pl/fulfillment/adapters/postgres/shipping"
	pgwarehouse "github.com/acme3pl/fulfillment/adapters/postgres/warehouse"
)

var update = flag.Bool("update", false, "write testdata/statements.golden anew")

// TestStatementTexts: testdata/statements.golden holds the whole text of
// every statement, by name, as the repositories compose it, so that a
// statement glued from parts written once (acceptOrderSQL, the invoice
// list's, the accruals) reads in one place, and a change to any text shows
// in review. `go test -run TestStatementTexts -update` writes it anew.
func TestStatementTexts(t *testing.T) {
	all := allStatements(t)
	names := make([]string, 0, len(all))
	for name := range all {
		names = append(names, name)
	}
	slices.Sort(names)
	var b strings.Builder
	for _, name := range names {
		fmt.Fprintf(&b, "-- %s (%s)\n%s\n\n", name, command(all[name]), strings.Trim(text(all[name]), "\n"))
	}
	const golden = "testdata/statements.golden"
	if *update {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if b.String() != string(want) {
		t.Errorf("the statements' texts differ from %s (go test -run TestStatementTexts -update writes it anew)", golden)
	}
}

// TestDeclaredCommands: every statement is declared with the command its
// text runs, the name of its span.
func TestDeclaredCommands(t *testing.T) {
	for name, s := range allStatements(t) {
		if got := postgres.Operation(text(s)); got != command(s) {
			t.Errorf("%s: declared %s, runs %s", name, command(s), got)
		}
	}
}

// allStatements are every repository's statements by name: the kit's and
// each context package's, one golden file for all.
func allStatements(t *testing.T) map[string]postgres.Statement {
	t.Helper()
	all := postgres.KitStatements()
	for _, pkg := range []map[string]postgres.Statement{pgaccess.Statements(), pgbilling.Statements(), pgfixture.Statements(), pgintake.Statements(), pginvoicing.Statements(), pgoperator.Statements(), pgshipping.Statements(), pgwarehouse.Statements()} {
		for name := range pkg {
			if _, ok := all[name]; ok {
				t.Fatalf("two statements named %s", name)
			}
		}
		maps.Copy(all, pkg)
	}
	return all
}

func command(s postgres.Statement) string { c, _ := postgres.Describe(s); return c }
func text(s postgres.Statement) string    { _, t := postgres.Describe(s); return t }

// TestContextOperations: TestOperation's cases of the context packages'
// statements (adapters/postgres/<context>), most of which begin WITH.
func TestContextOperations(t *testing.T) {
	for _, tt := range []struct {
		stmts map[string]postgres.Statement
		name  string
		want  string
	}{
		{pgintake.Statements(), "claimOrderSQL", "SELECT"},
		{pgshipping.Statements(), "createPickPackSQL", "INSERT"},
		{pgintake.Statements(), "acceptOrderSQL", "UPDATE"},
		{pgintake.Statements(), "recordFailureSQL", "INSERT"},
		{pginvoicing.Statements(), "invoiceLists[createdAt][desc].shortTerm", "SELECT"},
	} {
		if s := tt.stmts[tt.name]; command(s) != tt.want || postgres.Operation(text(s)) != tt.want {
			t.Errorf("%s: declared %s, runs %s, want %s", tt.name, command(s), postgres.Operation(text(s)), tt.want)
		}
	}
}
