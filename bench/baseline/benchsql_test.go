package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// The benchmarks' copies of the service's SQL are held to the service's
// source here, in the benchmarks' module, so that none of the service's
// own tests reads files under bench/.

// TestIntakeBenchScriptRunsTheIntakesSQL: bench/intake/intake.sql, the
// pgbench script the intake is measured against, holds every statement of
// a new order's intake, word for word, with pgbench expressions in place of
// the parameters; a change to one side that the other misses fails here.
func TestIntakeBenchScriptRunsTheIntakesSQL(t *testing.T) {
	service := stringConsts(t, "../../adapters/postgres/receipts.go")
	raw, err := os.ReadFile("../intake/intake.sql")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(string(raw), "\n") {
		if !strings.HasPrefix(l, "--") && !strings.HasPrefix(l, `\set`) {
			lines = append(lines, l)
		}
	}
	script := strings.Join(strings.Fields(strings.Join(lines, " ")), " ")
	param := regexp.MustCompile(`\\\$[1-9][0-9]*(::[a-z]+(\\\[\\\])?)?`)
	for _, name := range []string{"claimOrderSQL", "acceptOrderSQL"} {
		q, ok := service[name]
		if !ok {
			t.Fatalf("%s: not found in the service's receipts.go", name)
		}
		text := strings.Join(strings.Fields(q), " ")
		pattern := param.ReplaceAllString(regexp.QuoteMeta(text), `[^;]+?`)
		if !regexp.MustCompile(`(^|; )` + pattern + `;`).MatchString(script) {
			t.Errorf("bench/intake/intake.sql lacks this statement of the intake:\n%s", text)
		}
	}
}

// TestInvoiceSQLIsTheService: the reads' statements (sql.go) are the
// service's (adapters/postgres/invoices.go), byte for byte, for every
// order of the list with and without a status, its items and the detail.
func TestInvoiceSQLIsTheService(t *testing.T) {
	service := stringConsts(t, "../../adapters/postgres/invoices.go")
	ours := map[string]string{"invoiceItemsSQL": itemsSQL, "invoiceDetailSQL": detailSQL}
	for column, key := range map[string]string{"created_at": "CreatedAt", "updated_at": "UpdatedAt", "due_date": "DueDate"} {
		for _, ascending := range []bool{false, true} {
			dir := "Desc"
			if ascending {
				dir = "Asc"
			}
			ours["listBy"+key+dir+"SQL"] = listSQL(column, ascending, false)
			ours["listOfStatusBy"+key+dir+"SQL"] = listSQL(column, ascending, true)
		}
	}
	for name, text := range ours {
		if theirs, ok := service[name]; !ok {
			t.Errorf("%s: not found in the service's invoices.go", name)
		} else if text != theirs {
			t.Errorf("%s differs from the service's:\n--- ours\n%s\n--- the service's\n%s", name, text, theirs)
		}
	}
}
