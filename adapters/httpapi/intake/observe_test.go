package intake_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	intakeapp "github.com/acme3pl/fulfillment/application/intake"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/intake"
)

// Every answer of the intake is counted once, under the outcome and code
// its body says; a Pick & Pack shipment made by the intake counts as a
// transition to pending.
func TestStorefrontCountsEveryAnswer(t *testing.T) {
	tests := []struct {
		name          string
		result        intakeapp.StorefrontOrderResult
		err           error
		headers       []string
		outcome, code string
		submitted     float64 // pick_pack → pending transitions counted
	}{
		{"created", intakeapp.StorefrontOrderResult{ShipmentID: "shp_1"}, nil, nil, "created", "", 1},
		{"duplicate", intakeapp.StorefrontOrderResult{ShipmentID: "shp_1", Duplicate: true}, nil, nil, "duplicate", "", 0},
		{"duplicate of a skipped order", intakeapp.StorefrontOrderResult{Skipped: intake.SkipOrderCancelled, Duplicate: true}, nil, nil, "duplicate", "", 0},
		{"skipped", intakeapp.StorefrontOrderResult{Skipped: intake.SkipNoShippableItems}, nil, nil, "skipped", "", 0},
		{"no key", intakeapp.StorefrontOrderResult{}, nil, []string{"Authorization", ""}, "refused", "invalid_api_key", 0},
		{"scope", intakeapp.StorefrontOrderResult{}, nil, []string{"Authorization", "Bearer fk_test_shipments_only_00"}, "refused", "insufficient_scope", 0},
		{"media type", intakeapp.StorefrontOrderResult{}, nil, []string{"Content-Type", "text/plain"}, "refused", "unsupported_media_type", 0},
		{"unknown skus", intakeapp.StorefrontOrderResult{}, &domain.UnknownSKUsError{SKUs: []string{"A"}}, nil, "refused", "unknown_skus", 0},
		{"no warehouse", intakeapp.StorefrontOrderResult{}, domain.ErrNoWarehouse, nil, "refused", "no_warehouse", 0},
		{"key lookup down", intakeapp.StorefrontOrderResult{}, nil, []string{"Authorization", "Bearer fk_test_down"}, "failed", "unavailable", 0},
		{"database down", intakeapp.StorefrontOrderResult{}, fmt.Errorf("claim: %w", domain.ErrUnavailable), nil, "failed", "unavailable", 0},
		{"bug", intakeapp.StorefrontOrderResult{}, errors.New("boom"), nil, "failed", "internal", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newIntakeHarness()
			h.result, h.err = tt.result, tt.err
			w := h.post(readSample(t, "orders-create.json"), tt.headers...)
			if got := testutil.ToFloat64(h.metrics.IntakeOrders.WithLabelValues(tt.outcome, tt.code)); got != 1 {
				t.Errorf("orders_total{outcome=%q,code=%q} = %v after one %d answer, want 1", tt.outcome, tt.code, got, w.Code)
			}
			if got := testutil.CollectAndCount(h.metrics.IntakeOrders); got != 15 {
				t.Errorf("orders_total has %d series, want the 15 made at start (no new label value)", got)
			}
			if got := familySum(t, h.metrics.Registry, "fulfillment_storefront_orders_total"); got != 1 {
				t.Errorf("orders_total sums to %v after one answer, want 1", got)
			}
			if got := testutil.ToFloat64(h.metrics.ShipmentTransitions.WithLabelValues("pick_pack", "pending")); got != tt.submitted {
				t.Errorf("transitions{pick_pack,pending} = %v, want %v", got, tt.submitted)
			}
		})
	}
}

// familySum is the sum of the counter values of a family of reg.
func familySum(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	for _, f := range families {
		if f.GetName() == name {
			for _, m := range f.GetMetric() {
				sum += m.GetCounter().GetValue()
			}
		}
	}
	return sum
}
