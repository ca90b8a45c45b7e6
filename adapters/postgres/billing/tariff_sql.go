package billing

import (
	"fmt"
	"strings"

	"github.com/acme3pl/fulfillment/domain/billing"
)

// The SQL of billing's fees, generated from the tariff (domain/billing,
// Tariff) when the package starts: the fee rows of each fact's accrual,
// the fees a catch-up, the storage rewind, the repricing and the invoice's
// charges name, and a card's price of a fee. Each statement's text is
// fixed once built, so it is prepared once like any other and is held by
// testdata/statements.golden; a new row of the tariff changes the texts
// there, and nothing here.

// measures are the SQL of each fact's measures, in its accrual statement:
// a shipment's units and cartons (the lateral subqueries units and
// cartons), a receipt's (q), a day of storage's kind (o.units: true for
// units on hand, false for cartons; its quantity is what is on hand).
var measures = map[billing.Fact]map[billing.Measure]string{
	billing.Shipped:    {billing.EachFact: "1", billing.Units: "units.n", billing.Cartons: "cartons.n"},
	billing.Received:   {billing.EachFact: "1", billing.Units: "q.units", billing.Cartons: "q.cartons"},
	billing.StorageDay: {billing.Units: "true", billing.Cartons: "false"},
}

// quantity is the SQL of what rule r counts of one fact: its measure, less
// what is free, of the shipments of its kind only (0 of the others; a
// charge of quantity 0 is not inserted). It panics on a rule the fact's
// statement cannot count: the package fails to start, and every test
// with it.
func quantity(r billing.FeeRule) string {
	q, ok := measures[r.Fact][r.Measure]
	if !ok {
		panic(fmt.Sprintf("postgres: the tariff's %s counts %q of a %s: no such measure", r.Fee, r.Measure, r.Fact))
	}
	if r.Free > 0 {
		q = fmt.Sprintf("%s - %d", q, r.Free)
	}
	if r.Kind != "" {
		if r.Fact != billing.Shipped {
			panic(fmt.Sprintf("postgres: the tariff's %s has a kind (%q): only a shipment has one", r.Fee, r.Kind))
		}
		q = "CASE WHEN s.kind = " + quote(r.Kind) + " THEN " + q + " ELSE 0 END"
	}
	return q
}

// feeRows are the VALUES rows of the fees of a fact, for its accrual:
// each fee's name, its title and its quantity, f(fee, title, qty).
func feeRows(fact billing.Fact) string {
	rules := billing.FeesOf(fact)
	rows := make([]string, len(rules))
	for i, r := range rules {
		rows[i] = "(" + quote(string(r.Fee)) + ", " + quote(r.Title) + ", " + quantity(r) + ")"
	}
	return strings.Join(rows, ",\n\t")
}

// feesOf lists the fees of the facts, quoted, for an IN (…).
func feesOf(facts ...billing.Fact) string {
	var names []string
	for _, fact := range facts {
		for _, r := range billing.FeesOf(fact) {
			names = append(names, quote(string(r.Fee)))
		}
	}
	return strings.Join(names, ", ")
}

// priceOf is the price of the fee (an SQL expression) on the card rc, a row
// of rate_cards: its row in rate_card_fees, or 0 when the card has none.
func priceOf(fee string) string {
	return `coalesce((SELECT k.cents FROM rate_card_fees k
		WHERE ` + cardFee(fee) + `), 0)`
}

// cardFee is the condition of the row k of rate_card_fees of the fee on the
// card rc: for priceOf, or a join where the price is used twice (a scalar
// subquery would be run twice).
func cardFee(fee string) string {
	return `k.organization_id = rc.organization_id AND k.effective_from = rc.effective_from AND k.fee = ` + fee
}

// quote writes s as an SQL string literal.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
