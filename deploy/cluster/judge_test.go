package cluster_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestJudgeOrders shows that the cluster test's exactly-once check can fail:
// each way the database or the answers can break exactly-once is reported,
// and so is a day without deliberate redeliveries.
func TestJudgeOrders(t *testing.T) {
	ok := func(order int64, shipment string, duplicate bool) delivery {
		return delivery{order: order, status: http.StatusOK, shipmentID: shipment, duplicate: duplicate}
	}
	atOnce := func(d delivery) delivery { d.atOnce = true; return d }
	retry := func(d delivery) delivery { d.retry = true; return d }
	// Order 10 three times at once, one of them cut off (no answer) and retried; order 11 once.
	goodPhase := func() *phase {
		return &phase{name: "upgrade",
			deliveries: []delivery{ok(10, "shp_a", false), atOnce(ok(10, "shp_a", true)), atOnce(delivery{order: 10}), ok(11, "shp_b", false)},
			retries:    []delivery{retry(ok(10, "shp_a", true))},
		}
	}
	goodDB := func() (shipments, receipts map[int64][]string) {
		return map[int64][]string{10: {"shp_a"}, 11: {"shp_b"}}, map[int64][]string{10: {"shp_a"}, 11: {"shp_b"}}
	}

	for _, tc := range []struct {
		name  string
		spoil func(p *phase, shipments, receipts map[int64][]string)
		want  string // a problem containing this; "" for none
	}{
		{"exactly once", func(*phase, map[int64][]string, map[int64][]string) {}, ""},
		{"two shipments in the database", func(_ *phase, s, _ map[int64][]string) { s[10] = append(s[10], "shp_c") }, "order 10 (upgrade): 2 shipments"},
		{"no shipment", func(_ *phase, s, _ map[int64][]string) { delete(s, 11) }, "order 11 (upgrade): no shipment"},
		{"a shipment of an order never delivered", func(_ *phase, s, _ map[int64][]string) { s[12] = []string{"shp_d"} }, "3 orders have shipments, 2 were delivered"},
		{"no succeeded receipt", func(_ *phase, _, r map[int64][]string) { delete(r, 10) }, "order 10 (upgrade): succeeded receipts naming []"},
		{"a receipt naming another shipment", func(_ *phase, _, r map[int64][]string) { r[11] = []string{"shp_x"} }, "order 11 (upgrade): succeeded receipts naming [shp_x]"},
		{"two answers say created", func(p *phase, _, _ map[int64][]string) { p.deliveries[1].duplicate = false }, "order 10 (upgrade): 2 of its 3 200 answers say it was created"},
		{"an answer names another shipment", func(p *phase, _, _ map[int64][]string) { p.retries[0].shipmentID = "shp_c" }, `names shipment "shp_c", the database shp_a`},
		{"no redelivery at once", func(p *phase, _, _ map[int64][]string) {
			p.deliveries = []delivery{ok(10, "shp_a", false), ok(11, "shp_b", false)}
			p.retries = nil
		}, "exactly-once went untested"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := goodPhase()
			shipments, receipts := goodDB()
			tc.spoil(p, shipments, receipts)
			r, problems := judgeOrders(shipments, receipts, []*phase{p})
			if tc.want == "" {
				if len(problems) > 0 {
					t.Fatalf("problems %q, want none", problems)
				}
				if want := (exactlyOnce{orders: 2, atOnce: 2, retried: 1, answers: 4, duplicates: 2}); r != want {
					t.Errorf("figures %+v, want %+v", r, want)
				}
				return
			}
			for _, p := range problems {
				if strings.Contains(p, tc.want) {
					return
				}
			}
			t.Errorf("problems %q, want one containing %q", problems, tc.want)
		})
	}
}
