package billing_test

import (
	"regexp"
	"slices"
	"testing"

	"github.com/acme3pl/fulfillment/domain/billing"
)

// The tariff's rows are each a fee of its own, named as a rate card's JSON
// and a charge's fee are (lower case, words joined by _), apart from the
// charge kinds beyond the card; a fee of an accrued fact titles its line,
// counts a measure of it and has a unit; only a shipment's fee has a kind.
func TestTariffRows(t *testing.T) {
	name := regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)
	seen := map[billing.Fee]bool{}
	for _, r := range billing.Tariff {
		if !name.MatchString(string(r.Fee)) || seen[r.Fee] {
			t.Errorf("%q: not a fee name, or twice in the tariff", r.Fee)
		}
		seen[r.Fee] = true
		if slices.Contains([]billing.Fee{billing.FeeService, billing.FeeOperator, billing.FeeMinimum, billing.FeeCreditForward}, r.Fee) {
			t.Errorf("%q is a charge kind beyond the card's fees", r.Fee)
		}
		if r.Unit == "" {
			t.Errorf("%s: no unit", r.Fee)
		}
		if r.Kind != "" && r.Fact != billing.Shipped {
			t.Errorf("%s: a kind (%q) of a %s", r.Fee, r.Kind, r.Fact)
		}
		if !slices.Contains(billing.AccruedFacts, r.Fact) {
			continue
		}
		if r.Title == "" || billing.Titles[r.Fee] != r.Title {
			t.Errorf("%s: title %q, Titles has %q", r.Fee, r.Title, billing.Titles[r.Fee])
		}
		if !slices.Contains([]billing.Measure{billing.EachFact, billing.Units, billing.Cartons}, r.Measure) || r.Free < 0 {
			t.Errorf("%s: counts %q, %d free", r.Fee, r.Measure, r.Free)
		}
		if l := billing.FeeLines[r.Fee]; l.Noun == "" || l.NounPl == "" {
			t.Errorf("%s: no noun for its line's description", r.Fee)
		}
	}
	if !slices.EqualFunc(billing.Fees, billing.Tariff, func(f billing.Fee, r billing.FeeRule) bool { return f == r.Fee }) {
		t.Errorf("Fees %q are not the tariff's, in its order", billing.Fees)
	}
}
