package invoicing

import (
	"strings"
	"unicode"
)

// searchFiller stands for every run of separators in invoices.search_fill
// (migration 0005): search_text with each run of characters other than
// a–z, 0–9 and the newline between fields replaced by one 'q'. pg_trgm
// drops separators, so "storage kitting" in search_text yields the trigrams
// of two common words; in search_fill it is "storageqkitting", whose
// trigrams across the junction ("geq", "eqk", "qki") are rare together.
const searchFiller = 'q'

// fillOf is the search_fill of s, as migration 0005 computes it from
// search_text, and which of its characters are fillers. Both sides apply
// the same ASCII rule to the same lower-cased text, so a substring of
// search_text always has its fill inside the text's fill: every run of
// separators inside a term is a whole run in the text (letters or digits
// bound it on both sides), and a run at either end of the term becomes one
// filler, as whatever run holds it in the text does.
func fillOf(s string) ([]byte, []bool) {
	out := make([]byte, 0, len(s))
	var filler []bool
	inRun := false
	for _, c := range s {
		if c == '\n' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' {
			out = append(out, byte(c))
			filler = append(filler, false)
			inRun = false
		} else if !inRun {
			out = append(out, searchFiller)
			filler = append(filler, true)
			inRun = true
		}
	}
	return out, filler
}

// fillPattern is the LIKE pattern on search_fill that looks term (lower
// case) up in the trigram index, or "" when term's fill is shorter than a
// trigram (the short-term path serves it).
//
// A term of one word is looked up whole: all its trigrams, as pg_trgm does
// for search_text. A term of several words is looked up by its junctions:
// every filler with up to two characters on each side ("ge" q "ki"), the
// trigrams that make a combination of common words rare. The other
// characters stay in the pattern where they cannot form a trigram — every
// third one, and those next to a junction, become '_' — so that PostgreSQL
// estimates the pattern's frequency from search_fill's histogram almost as
// precisely as the whole term's, while the GIN scan only intersects the
// junctions' posting lists: it checks every trigram of the pattern for each
// item of the rarest one, so each common trigram left out of it saves a
// pass over that list (docs/benchmarks.md, "Every search shape"). Whatever the pattern
// lets through, strpos on search_text decides (invoiceList.contains).
func fillPattern(term string) string {
	f, filler := fillOf(term)
	n := len(f)
	if n < 3 {
		return ""
	}
	kept := make([]bool, n)
	internal := false
	for i := 1; i+1 < n; i++ {
		internal = internal || filler[i]
	}
	for i := range n {
		switch {
		case !internal:
			kept[i] = true
		case filler[i]:
			for j := max(i-2, 0); j <= min(i+2, n-1); j++ {
				kept[j] = true
			}
		}
	}
	var b strings.Builder
	b.Grow(n + 2)
	b.WriteByte('%')
	run := 0 // literal characters in a row outside the kept ones
	for i := range n {
		switch {
		case kept[i]:
			b.WriteByte(f[i])
			run = 0
		case i > 0 && kept[i-1] || i+1 < n && kept[i+1] || run == 2:
			b.WriteByte('_')
			run = 0
		default:
			b.WriteByte(f[i])
			run++
		}
	}
	b.WriteByte('%')
	return b.String()
}

// escapeLike makes %, _ and the escape character \ match themselves in a
// LIKE pattern.
func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// shortGrams returns the grams of term to look up in the gram index: the
// term's distinct two-character grams, or its characters when it has none.
// Grams with a control character are left out: invoice_search_grams cuts the
// text at U+001F, so it may lack them, and the use case refuses such terms
// anyway. Every other gram of a substring is among the text's, so the lookup
// never loses a match.
func shortGrams(term string) []string {
	runes := []rune(term)
	seen := map[string]bool{}
	var grams []string
	add := func(g string) {
		if !seen[g] && strings.IndexFunc(g, unicode.IsControl) < 0 {
			seen[g] = true
			grams = append(grams, g)
		}
	}
	for i := 0; i+1 < len(runes); i++ {
		add(string(runes[i : i+2]))
	}
	if len(grams) == 0 {
		for _, c := range runes {
			add(string(c))
		}
	}
	return grams
}

// gramQuery is the tsquery of the gram index that term looks up: each of
// its grams (shortGrams) a quoted lexeme (a backslash escapes ' and \
// inside the quotes), joined by &. Quoted, a lexeme is taken as written,
// spaces and operators included.
func gramQuery(term string) string {
	grams := shortGrams(term)
	for i, g := range grams {
		grams[i] = "'" + tsqueryEscaper.Replace(g) + "'"
	}
	return strings.Join(grams, " & ")
}

var tsqueryEscaper = strings.NewReplacer(`\`, `\\`, `'`, `\'`)
