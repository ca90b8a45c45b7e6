package cluster_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
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
			checkVerdict(t, r, problems, tc.want, exactlyOnce{orders: 2, atOnce: 2, retried: 1, answers: 4, duplicates: 2})
		})
	}
}

// TestJudgeEvents shows that the cluster test's check of the stream can
// fail: each way the shipment.created messages can break exactly-once by id
// against the database's shipments is reported, and so is an empty stream.
func TestJudgeEvents(t *testing.T) {
	event := func(seq uint64, id, shipment, order string) shipmentEvent {
		return shipmentEvent{seq: seq, msgID: id, id: id, typ: "shipment.created", subject: shipment, org: org,
			shipmentID: shipment, orderID: order}
	}
	goodEvents := func() []shipmentEvent {
		return []shipmentEvent{event(1, "evt_1", "shp_a", "10"), event(2, "evt_2", "shp_b", "11")}
	}
	goodDB := func() map[int64][]string { return map[int64][]string{10: {"shp_a"}, 11: {"shp_b"}} }

	for _, tc := range []struct {
		name  string
		spoil func(events *[]shipmentEvent, shipments map[int64][]string)
		want  string // a problem containing this; "" for none
	}{
		{"exactly once", func(*[]shipmentEvent, map[int64][]string) {}, ""},
		{"a shipment without its event", func(e *[]shipmentEvent, _ map[int64][]string) { *e = (*e)[:1] },
			"order 11: no shipment.created for its shipment shp_b"},
		{"a shipment's event twice under two ids", func(e *[]shipmentEvent, _ map[int64][]string) {
			*e = append(*e, event(3, "evt_3", "shp_a", "10"))
		}, "order 10: 2 shipment.created for its shipment shp_a: [evt_1 evt_3]"},
		{"the same id twice", func(e *[]shipmentEvent, _ map[int64][]string) {
			*e = append(*e, event(3, "evt_1", "shp_a", "10"))
		}, "event evt_1 twice on the stream (messages 1 and 3)"},
		{"an event for a shipment not in the database", func(e *[]shipmentEvent, _ map[int64][]string) {
			*e = append(*e, event(3, "evt_3", "shp_x", "12"))
		}, `1 shipment.created for the shipment "shp_x", which the database does not have`},
		{"a shipment the database has twice, the second without an event", func(_ *[]shipmentEvent, s map[int64][]string) {
			s[10] = append(s[10], "shp_c")
		}, "order 10: no shipment.created for its shipment shp_c"},
		{"an event naming another order", func(e *[]shipmentEvent, _ map[int64][]string) { (*e)[1].orderID = "12" },
			`order 11: the shipment.created evt_2 of its shipment shp_b names the order "12"`},
		{"an event without its order", func(e *[]shipmentEvent, _ map[int64][]string) { (*e)[1].orderID = "" },
			`names the order ""`},
		{"a message ID not the event's id", func(e *[]shipmentEvent, _ map[int64][]string) { (*e)[0].msgID = "evt_0" },
			`message 1: Nats-Msg-Id "evt_0", the event's id "evt_1"`},
		{"a subject not the shipment", func(e *[]shipmentEvent, _ map[int64][]string) { (*e)[0].subject = "shp_b" },
			`message 1: type "shipment.created", subject "shp_b"`},
		{"another organization", func(e *[]shipmentEvent, _ map[int64][]string) { (*e)[0].org = "org_other" },
			`organization "org_other"`},
		{"an empty stream", func(e *[]shipmentEvent, _ map[int64][]string) { *e = nil }, "no shipment.created on the stream"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			events, shipments := goodEvents(), goodDB()
			tc.spoil(&events, shipments)
			r, problems := judgeEvents(shipments, events)
			checkVerdict(t, r, problems, tc.want, eventsOnce{events: 2, shipments: 2, once: 2})
		})
	}
}

// TestReadyWatch shows that the upgrade's check of serving pods can fail: a
// sample with fewer than two pods Ready and not terminating is reported, and
// so is a watch that never saw the new pods Ready.
func TestReadyWatch(t *testing.T) {
	pod := func(name, version string, ready, deleting bool) serverPod {
		return serverPod{name: name, version: version, ready: ready, deleting: deleting}
	}
	rollout := [][]serverPod{
		{pod("a1", "A", true, false), pod("a2", "A", true, false)},
		{pod("a1", "A", true, false), pod("a2", "A", true, false), pod("b1", "B", false, false)},
		{pod("a1", "A", true, true), pod("a2", "A", true, false), pod("b1", "B", true, false)},
		{pod("a2", "A", true, false), pod("b1", "B", true, false), pod("b2", "B", false, false)},
		{pod("b1", "B", true, false), pod("b2", "B", true, false)},
	}
	for _, tc := range []struct {
		name  string
		spoil func(samples [][]serverPod) [][]serverPod
		want  string // a failure containing this; "" for none
	}{
		{"old pods serve until the new ones are Ready", func(s [][]serverPod) [][]serverPod { return s }, ""},
		{"an old pod terminating before a new one is Ready", func(s [][]serverPod) [][]serverPod {
			s[1][0].deleting = true
			return s
		}, "fewer than 2 server pods Ready"},
		{"an old pod not Ready during the migration", func(s [][]serverPod) [][]serverPod {
			s[0][1].ready = false
			return s
		}, "fewer than 2 server pods Ready"},
		{"no new pod ever Ready", func(s [][]serverPod) [][]serverPod { return s[:2] }, "want some of each"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var samples [][]serverPod
			for _, s := range rollout {
				samples = append(samples, slices.Clone(s))
			}
			samples = tc.spoil(samples)
			w := &readyWatch{oldVersion: "A", newVersion: "B"}
			for i := 0; i < 4; i++ { // enough samples to judge
				for _, s := range samples {
					w.record(time.Unix(0, 0), s)
				}
			}
			failures := w.problems()
			if tc.want == "" {
				if len(failures) > 0 {
					t.Fatalf("failures %q, want none", failures)
				}
				return
			}
			for _, f := range failures {
				if strings.Contains(f, tc.want) {
					return
				}
			}
			t.Errorf("failures %q, want one containing %q", failures, tc.want)
		})
	}
}

// checkVerdict checks a judge's verdict: with want empty, no problems and
// the figures wantFigures; else a problem that contains want.
func checkVerdict[F comparable](t *testing.T, figures F, problems []string, want string, wantFigures F) {
	t.Helper()
	if want == "" {
		if len(problems) > 0 {
			t.Fatalf("problems %q, want none", problems)
		}
		if figures != wantFigures {
			t.Errorf("figures %+v, want %+v", figures, wantFigures)
		}
		return
	}
	for _, p := range problems {
		if strings.Contains(p, want) {
			return
		}
	}
	t.Errorf("problems %q, want one containing %q", problems, want)
}
