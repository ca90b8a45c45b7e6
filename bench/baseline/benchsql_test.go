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
	service := serviceStatements(t)
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
			t.Fatalf("%s: not among the service's statements", name)
		}
		text := strings.Join(strings.Fields(q), " ")
		pattern := param.ReplaceAllString(regexp.QuoteMeta(text), `[^;]+?`)
		if !regexp.MustCompile(`(^|; )` + pattern + `;`).MatchString(script) {
			t.Errorf("bench/intake/intake.sql lacks this statement of the intake:\n%s", text)
		}
	}
}

// TestInvoiceSQLIsTheService: the reads' statements (sql.go) are the
// service's (adapters/postgres/invoicing/invoices.go), byte for byte, for every
// order of the list with and without a status, its items and the detail.
func TestInvoiceSQLIsTheService(t *testing.T) {
	ours := map[string]string{"invoiceItemsSQL": itemsSQL, "invoiceDetailSQL": detailSQL}
	for column, key := range map[string]string{"created_at": "createdAt", "updated_at": "updatedAt", "due_date": "dueDate"} {
		for dir, ascending := range map[string]bool{"desc": false, "asc": true} {
			ours["invoiceLists["+key+"]["+dir+"].list"] = listSQL(column, ascending, false)
			ours["invoiceLists["+key+"]["+dir+"].listOfStatus"] = listSQL(column, ascending, true)
		}
	}
	sameAsService(t, ours)
}
