package telemetry_test

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/acme3pl/fulfillment/adapters/telemetry"
	"github.com/acme3pl/fulfillment/domain/billing"
)

// The Grafana dashboard names no fee by hand: the panels of
// fulfillment_billing_charges_total split the charges by the fee label, so
// a fee added to the tariff (domain/billing/tariff.go) shows as a series of
// its own with no edit of the dashboard; a fee it does name (a label
// matcher) must be one of the label's values; and no panel's title or
// description lists the tariff's fees, a list that a new fee would leave
// short.
func TestDashboardFeesFollowTheTariff(t *testing.T) {
	b, err := os.ReadFile("../../deploy/grafana/fulfillment.json")
	if err != nil {
		t.Fatal(err)
	}
	var d struct{ Panels []dashboardPanel }
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	matcher := regexp.MustCompile(`\bfee\s*(?:=~|!~|!=|=)\s*"([^"]*)"`)
	charged := 0
	for _, p := range flatten(d.Panels) {
		for _, fee := range billing.Fees {
			word := regexp.MustCompile(`\b` + string(fee) + `\b`)
			if word.MatchString(p.Title) || word.MatchString(p.Description) {
				t.Errorf("panel %q names the fee %q in its title or description: say what the series are, not which", p.Title, fee)
			}
		}
		for _, tg := range p.Targets {
			for _, m := range matcher.FindAllStringSubmatch(tg.Expr, -1) {
				for _, fee := range strings.Split(m[1], "|") {
					if !slices.Contains(telemetry.BillingFees, fee) {
						t.Errorf("panel %q: %s matches the fee %q, not a value of the fee label %q", p.Title, m[0], fee, telemetry.BillingFees)
					}
				}
			}
			if strings.Contains(tg.Expr, "fulfillment_billing_charges_total") {
				charged++
				if !strings.Contains(tg.Expr, "by (fee)") {
					t.Errorf("panel %q sums fulfillment_billing_charges_total without splitting it by fee: %s", p.Title, tg.Expr)
				}
			}
		}
	}
	if charged == 0 {
		t.Error("no panel shows fulfillment_billing_charges_total")
	}
}

// dashboardPanel is what the test reads of a Grafana panel; a collapsed
// row holds its panels.
type dashboardPanel struct {
	Title, Description string
	Panels             []dashboardPanel
	Targets            []struct{ Expr string }
}

// flatten lists the panels and the panels of their rows.
func flatten(panels []dashboardPanel) []dashboardPanel {
	var out []dashboardPanel
	for _, p := range panels {
		out = append(append(out, p), flatten(p.Panels)...)
	}
	return out
}
