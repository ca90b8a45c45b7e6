package invoicing_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/adapters/postgres/pgtest"
	"github.com/acme3pl/fulfillment/domain/invoicing"
	"github.com/acme3pl/fulfillment/ports"
	invoicingports "github.com/acme3pl/fulfillment/ports/invoicing"
)

func TestInvoiceSearch(t *testing.T) {
	db := pgtest.Open(t, testDSN)
	repo := invRepo(db)
	const org, other = "org_inv_search", "org_inv_search_x"
	at := func(m int) time.Time { return invT0.Add(time.Duration(m) * time.Minute) }
	invSeed(t, db, []string{org, other},
		invSpec{id: "inv-s-IDTOKEN-1", org: org, created: at(1)},
		invSpec{id: "inv-s-key", org: org, key: "INV-2026-KEYTOKEN", created: at(2)},
		invSpec{id: "inv-s-name", org: org, name: "October NameToken storage", created: at(3)},
		invSpec{id: "inv-s-notes", org: org, notes: "Net 30. notestoken inside", created: at(4)},
		invSpec{id: "inv-s-title", org: org, items: [][2]string{{"Pick", "x"}, {"Second TitleToken line", "y"}}, created: at(5)},
		invSpec{id: "inv-s-desc", org: org, items: [][2]string{{"Pick", "x"}, {"Pack", "to Zoë — DescToken city"}}, created: at(6)},
		invSpec{id: "inv-s-umlaut", org: org, name: "ÄPFEL und Birnen", notes: "Øresund", created: at(7)},
		invSpec{id: "inv-s-across", org: org, name: "Monthly fee", notes: "storage extra", created: at(8)},
		invSpec{id: "inv-s-draft", org: org, status: invoicing.InvoiceDraft, name: "NameToken draft", created: at(9)},
		invSpec{id: "inv-s-deleted", org: org, deleted: true, name: "NameToken deleted", created: at(10)},
		invSpec{id: "inv-s-unpaid", org: org, status: invoicing.InvoiceUnpaid, name: "Unpaid NameToken", created: at(11)},
		invSpec{id: "inv-s-other", org: other, name: "NameToken DescToken of another organization", created: at(12)},
	)
	tests := []struct {
		term   string
		status invoicing.InvoiceStatus
		want   []string
	}{
		{term: "idtoken", want: []string{"inv-s-IDTOKEN-1"}},                                 // invoice ID, other case
		{term: "inv-s-IDTOKEN", want: []string{"inv-s-IDTOKEN-1"}},                           // ID prefix
		{term: "keytoken", want: []string{"inv-s-key"}},                                      // key, not in responses
		{term: "2026-KEY", want: []string{"inv-s-key"}},                                      // key, across punctuation
		{term: "NAMETOKEN", want: []string{"inv-s-unpaid", "inv-s-name"}},                    // name; draft, deleted and other org left out
		{term: "nametoken", status: invoicing.InvoiceUnpaid, want: []string{"inv-s-unpaid"}}, // with a status
		{term: "NotesToken", want: []string{"inv-s-notes"}},                                  // notes
		{term: "titletoken", want: []string{"inv-s-title"}},                                  // second item's title
		{term: "desctoken", want: []string{"inv-s-desc"}},                                    // second item's description
		{term: "zoë — desc", want: []string{"inv-s-desc"}},                                   // non-ASCII, punctuation
		{term: "ZOË", want: []string{"inv-s-desc"}},                                          // non-ASCII upper case
		{term: "äpfel", want: []string{"inv-s-umlaut"}},                                      // stored upper, searched lower
		{term: "ø", want: []string{"inv-s-umlaut"}},                                          // one character
		{term: "Ø", want: []string{"inv-s-umlaut"}},                                          // one character, upper case
		{term: "ktob", want: []string{}},                                                     // nothing
		{term: "tob", want: []string{"inv-s-name"}},                                          // inside a word
		{term: "fee storage", want: []string{}},                                              // never across two fields
		{term: "Y F", want: []string{"inv-s-across"}},                                        // no run of three letters: the gram index
		{term: "xylophone", want: []string{}},
		{term: "storage extra", want: []string{"inv-s-across"}},      // two words, found by their junction
		{term: "october nametoken st", want: []string{"inv-s-name"}}, // three words, the last one cut
		{term: "storage nametoken", want: []string{}},                // both words there, never in this order
		{term: "To Zoë — DescTok", want: []string{"inv-s-desc"}},     // a run of separators
		{term: "zoë desctok", want: []string{}},                      // … is not one space
	}
	for _, tt := range tests {
		got, _ := invList(t, repo, org, invoicingports.InvoiceFilter{Search: tt.term, Status: tt.status}, ports.Page{Take: 10})
		if !slices.Equal(got, tt.want) {
			t.Errorf("search %q (status %q): %v, want %v", tt.term, tt.status, got, tt.want)
		}
	}
	// The other organization finds only its own.
	if got, _ := invList(t, repo, other, invoicingports.InvoiceFilter{Search: "nametoken"}, ports.Page{Take: 10}); !slices.Equal(got, []string{"inv-s-other"}) {
		t.Errorf("other organization's search: %v", got)
	}
	if got, _ := invList(t, repo, other, invoicingports.InvoiceFilter{Search: "idtoken"}, ports.Page{Take: 10}); len(got) != 0 {
		t.Errorf("other organization finds %v by a foreign ID", got)
	}
}

// TestInvoiceSearchWildcardsMatchThemselves covers %, _ and \ in terms of
// every kind: one or two characters and punctuation (the gram index) and
// terms with a run of three letters (the trigram index).
func TestInvoiceSearchWildcardsMatchThemselves(t *testing.T) {
	db := pgtest.Open(t, testDSN)
	repo := invRepo(db)
	const org = "org_inv_wild"
	// IDs, keys and names without _ so that only the names below hold one.
	names := map[string]string{
		"inv-w-pct":   "50% off",
		"inv-w-space": "100 percent",
		"inv-w-under": "pallet_storage a_b",
		"inv-w-axb":   "pallet-storage axb",
		"inv-w-back":  `C:\temp\path`,
		"inv-w-plain": "Cpath temp",
		"inv-w-all":   `odd %_\ mix`,
		"inv-w-quote": `it's "quoted" ?`,
	}
	var specs []invSpec
	i := 0
	for id, name := range names {
		i++
		specs = append(specs, invSpec{id: id, org: org, key: fmt.Sprintf("K-%d", i), name: name,
			items: [][2]string{{"Item", "plain"}}, created: invT0.Add(time.Duration(len(id)) * time.Second)})
	}
	invSeed(t, db, []string{org}, specs...)
	tests := []struct {
		term string
		want []string
	}{
		{term: "%", want: []string{"inv-w-pct", "inv-w-all"}},
		{term: "0%", want: []string{"inv-w-pct"}},
		{term: "50% off", want: []string{"inv-w-pct"}},
		{term: "% off", want: []string{"inv-w-pct"}},
		{term: "_", want: []string{"inv-w-under", "inv-w-all"}},
		{term: "a_b", want: []string{"inv-w-under"}},
		{term: "pallet_storage", want: []string{"inv-w-under"}},
		{term: `\`, want: []string{"inv-w-back", "inv-w-all"}},
		{term: `:\`, want: []string{"inv-w-back"}},
		{term: `c:\temp\path`, want: []string{"inv-w-back"}},
		{term: `\temp`, want: []string{"inv-w-back"}},
		{term: `%_\`, want: []string{"inv-w-all"}},
		{term: `it's "quoted" ?`, want: []string{"inv-w-quote"}},
		{term: "?", want: []string{"inv-w-quote"}},
		{term: "'", want: []string{"inv-w-quote"}},
	}
	for _, tt := range tests {
		got, _ := invList(t, repo, org, invoicingports.InvoiceFilter{Search: tt.term}, ports.Page{Take: 10})
		slices.Sort(got)
		slices.Sort(tt.want)
		if !slices.Equal(got, tt.want) {
			t.Errorf("search %q: %v, want %v", tt.term, got, tt.want)
		}
	}
}

func TestInvoiceSearchPagesWithTies(t *testing.T) {
	db := pgtest.Open(t, testDSN)
	repo := invRepo(db)
	const org = "org_inv_spage"
	specs := invOrderSpecs(org, 30)
	for i := range specs {
		if i%2 == 0 {
			specs[i].notes = "Peak season surcharge"
		}
	}
	invSeed(t, db, []string{org}, specs...)
	var matching []invSpec
	for _, s := range specs {
		if s.notes != "" {
			matching = append(matching, s)
		}
	}
	for _, term := range []string{"surcharge", "pe"} { // trigram and gram index
		for _, by := range []invoicingports.InvoiceSortKey{invoicingports.InvoicesByCreatedAt, invoicingports.InvoicesByDueDate} {
			for _, asc := range []bool{false, true} {
				f := invoicingports.InvoiceFilter{Search: term, SortBy: by, Ascending: asc}
				want := invExpected(matching, org, invoicingports.InvoiceFilter{SortBy: by, Ascending: asc})
				if all := invAll(t, repo, org, f, 4); !slices.Equal(all, want) {
					t.Errorf("%+v: %v, want %v", f, all, want)
				}
			}
		}
	}
}
