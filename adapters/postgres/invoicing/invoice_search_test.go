package invoicing_test

import (
	"context"
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
	"unicode"
	"unicode/utf8"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	pginvoicing "github.com/acme3pl/fulfillment/adapters/postgres/invoicing"
	"github.com/acme3pl/fulfillment/adapters/postgres/pgtest"
	"github.com/acme3pl/fulfillment/migrations"
	"github.com/acme3pl/fulfillment/ports"
	invoicingports "github.com/acme3pl/fulfillment/ports/invoicing"
)

// oddNames need every case of the fill: runs of separators, separators at
// either end, a real q next to a filler, digits, non-ASCII letters and
// marks, upper case, characters whose lower case is longer, LIKE's
// wildcards and escape.
var oddNames = []string{
	"Pallet storage — 31 days × 12", "  leading and trailing!! ", "Q-quoted 'q' q_q", "Zoë Dubois, Øresund; İstanbul ǅ",
	`50% off_now \ back\slash`, "東京都 – 倉庫", "e\u0301clair (NFD)", "a", "--", "ABC123xyz", "storage kitting", "x  y\t z",
}

// TestSearchFillAgreesWithTheDatabase checks the property the search rests
// on: for every term that is a substring of an invoice's search text, the
// pattern the repository looks up (fillPattern) matches the search_fill
// PostgreSQL computed (migration 0005), by PostgreSQL's own LIKE. It also
// checks that the Go and SQL transformations of the same text agree.
func TestSearchFillAgreesWithTheDatabase(t *testing.T) {
	db := pgtest.Open(t, testDSN)
	ctx := context.Background()
	const org = "org_inv_fill"
	var specs []invSpec
	for i, name := range oddNames {
		specs = append(specs, invSpec{id: fmt.Sprintf("inv-fill-%02d", i), org: org, name: name, notes: oddNames[(i+1)%len(oddNames)],
			items: [][2]string{{oddNames[(i+2)%len(oddNames)], oddNames[(i+3)%len(oddNames)]}}})
	}
	invSeed(t, db, []string{org}, specs...)
	var fills, patterns, terms []string
	for _, r := range checkFilled(ctx, t, db, org, len(oddNames)) {
		// Every substring of up to 16 characters that a search term could
		// be: trimmed, no control character.
		runes := []rune(r.SearchText)
		for i := range runes {
			for j := i + 1; j <= min(i+16, len(runes)); j++ {
				term := string(runes[i:j])
				if term != strings.TrimSpace(term) || strings.IndexFunc(term, unicode.IsControl) >= 0 {
					continue
				}
				if p := pginvoicing.FillPattern(term); p != "" {
					fills, patterns, terms = append(fills, r.SearchFill), append(patterns, p), append(terms, term)
				}
			}
		}
	}
	if len(terms) < 1000 {
		t.Fatalf("only %d terms", len(terms))
	}
	misses := pgtest.ScanQuery[[]int](t, db, `SELECT t.n::int FROM unnest(?::text[], ?::text[]) WITH ORDINALITY AS t(fill, pattern, n)
		WHERE NOT t.fill LIKE t.pattern ORDER BY t.n`, pgdialect.Array(fills), pgdialect.Array(patterns))
	for _, n := range misses[:min(len(misses), 10)] {
		t.Errorf("term %q: pattern %q does not match the fill %q", terms[n-1], patterns[n-1], fills[n-1])
	}
	t.Logf("%d terms checked", len(terms))
}

// TestGramQueryAgreesWithTheDatabase checks the gram lookup of short terms
// (migration 0014): for every term of up to four characters, the tsquery
// the repository sends (GramQuery) parses, and matches the gram lexemes of
// a text exactly when the text holds all the term's grams, quotes,
// backslashes, spaces and tsquery's operators included.
func TestGramQueryAgreesWithTheDatabase(t *testing.T) {
	db := pgtest.Open(t, testDSN)
	texts := append([]string{`it's a \'q'\ & b | !c: (d*) <-> e`}, oddNames...)
	var corpus, queries []string
	var want []bool
	for i, text := range texts {
		lower := strings.ToLower(text)
		other := strings.ToLower(texts[(i+1)%len(texts)])
		runes := []rune(lower)
		for a := range runes {
			for b := a + 1; b <= min(a+4, len(runes)); b++ {
				term := string(runes[a:b])
				if term != strings.TrimSpace(term) || strings.IndexFunc(term, unicode.IsControl) >= 0 {
					continue
				}
				// The term against its own text (always held) and another.
				corpus, queries, want = append(corpus, lower), append(queries, pginvoicing.GramQuery(term)), append(want, true)
				corpus, queries, want = append(corpus, other), append(queries, pginvoicing.GramQuery(term)), append(want, holdsGrams(other, term))
			}
		}
	}
	got := pgtest.ScanQuery[[]bool](t, db, `SELECT array_to_tsvector(invoice_search_grams(t.text)) @@ t.query::tsquery
		FROM unnest(?::text[], ?::text[]) WITH ORDINALITY AS t(text, query, n) ORDER BY t.n`,
		pgdialect.Array(corpus), pgdialect.Array(queries))
	if len(got) != len(want) || len(want) < 500 {
		t.Fatalf("%d answers for %d queries", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("%q in %q: matched %v, want %v", queries[i], corpus[i], got[i], want[i])
		}
	}
}

// holdsGrams tells whether text holds every gram the lookup of term asks
// for: its pairs of adjacent characters, or its one character.
func holdsGrams(text, term string) bool {
	runes := []rune(term)
	if len(runes) == 1 {
		return strings.Contains(text, term)
	}
	for i := 0; i+1 < len(runes); i++ {
		if !strings.Contains(text, string(runes[i:i+2])) {
			return false
		}
	}
	return true
}

// TestMigration0005BackfillsAndRollsBack applies migrations 0001–0004,
// writes invoices, then applies the rest: search_fill is computed for the
// existing rows and searched; rolling back 0006 and 0005 restores the
// trigram index on search_text, and applying them again works.
func TestMigration0005BackfillsAndRollsBack(t *testing.T) {
	ctx := context.Background()
	db := pgtest.Open(t, pgtest.Database(t, false))
	upTo0004 := fstest.MapFS{}
	files, err := fs.Glob(migrations.FS, "*.sql")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if f < "0005" {
			b, err := fs.ReadFile(migrations.FS, f)
			if err != nil {
				t.Fatal(err)
			}
			upTo0004[f] = &fstest.MapFile{Data: b}
		}
	}
	old := pgtest.NewMigrator(t, db, upTo0004)
	if _, err := old.Up(ctx); err != nil {
		t.Fatal(err)
	}
	const org = "org_inv_backfill"
	invSeed(t, db, []string{org},
		invSpec{id: "inv-bf-1", org: org, name: "Pallet storage", items: [][2]string{{"Kitting", "40 kits"}}},
		invSpec{id: "inv-bf-2", org: org, name: "Storage, kitting & more"},
		invSpec{id: "inv-bf-3", org: org, name: "storage kitting"})

	m := pgtest.NewMigrator(t, db, migrations.FS)
	applied, err := m.Up(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(applied) < 3 || strings.Join(applied[:3], ",") != "0005_invoice_search_fill,0006_vacuum_invoices,0007_failed_order_payloads" {
		t.Fatalf("applied %v", applied)
	}
	checkFilled(ctx, t, db, org, 3)
	if got, _ := invList(t, invRepo(db), org, invoicingports.InvoiceFilter{Search: "Storage Kitting"}, ports.Page{Take: 10}); strings.Join(got, ",") != "inv-bf-3" {
		t.Errorf("search after the migration: %v", got)
	}

	// Down through the later migrations, newest first, to before 0005.
	for i := len(applied) - 1; i >= 0; i-- {
		if name, err := m.Down(ctx); err != nil || name != applied[i] {
			t.Fatalf("down: %q %v, want %s", name, err, applied[i])
		}
	}
	var column, oldIndex bool
	if err := db.NewRaw(`SELECT EXISTS (SELECT 1 FROM information_schema.columns WHERE table_name = 'invoices' AND column_name = 'search_fill'),
		EXISTS (SELECT 1 FROM pg_indexes WHERE indexname = 'invoices_search_trgm_idx')`).Scan(ctx, &column, &oldIndex); err != nil {
		t.Fatal(err)
	}
	if column || !oldIndex {
		t.Fatalf("after down: search_fill present %v, invoices_search_trgm_idx present %v", column, oldIndex)
	}
	// Written while rolled back, filled when migrated again.
	invSeed(t, db, nil, invSpec{id: "inv-bf-4", org: org, name: "Storage kitting again"})
	if _, err := m.Up(ctx); err != nil {
		t.Fatal(err)
	}
	checkFilled(ctx, t, db, org, 4)
}

// fillRow is an invoice's search text and fill, as stored.
type fillRow struct {
	SearchText string `bun:"search_text"`
	SearchFill string `bun:"search_fill"`
}

// checkFilled wants n invoices of org, each with the search_fill the
// repository computes from its search text, and returns them.
func checkFilled(ctx context.Context, t *testing.T, db *bun.DB, org string, n int) []fillRow {
	t.Helper()
	var rows []fillRow
	if err := db.NewSelect().Table("invoices").Column("search_text", "search_fill").Where("organization_id = ?", org).Scan(ctx, &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != n {
		t.Fatalf("%d invoices, want %d", len(rows), n)
	}
	for _, r := range rows {
		if want := pginvoicing.FillOf(r.SearchText); r.SearchFill != want || !utf8.ValidString(r.SearchFill) {
			t.Errorf("fill of %q: PostgreSQL %q, Go %q", r.SearchText, r.SearchFill, want)
		}
	}
	return rows
}
