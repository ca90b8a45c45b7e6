package intake_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/acme3pl/fulfillment/application/apptest"
	intakeapp "github.com/acme3pl/fulfillment/application/intake"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/audit"
)

// A run over every failed order: each replayed once, told to Each one at a
// time with the counts so far, the summary the CLI prints, and one audit
// record of the run with its outcome.
func TestReplayFailedOrdersAll(t *testing.T) {
	st := intakeFixture()
	app := apptest.IntakeApp(st, domain.Sandbox)
	ctx := context.Background()
	for _, id := range []int64{31, 32, 33} {
		if _, err := deliverBody(app, "t", orderBody(id, "NEW-3")); err == nil {
			t.Fatal("the order went through")
		}
	}
	if _, err := deliverBody(app, "t", orderBody(34, "NEW-4")); err == nil {
		t.Fatal("the order went through")
	}
	st.AddProduct(apptest.IntakeOrg, "prod_new3", "NEW-3")

	var mu sync.Mutex
	seen := map[int64]string{}
	last := 0
	run, err := app.Intake.ReplayFailedOrders.Handle(ctx, intakeapp.ReplayFailedOrders{
		OrganizationID: apptest.IntakeOrg, AllFailed: true, Workers: 3, Actor: apptest.Operator,
		Each: func(o intakeapp.ReplayedOrder) {
			mu.Lock()
			defer mu.Unlock()
			seen[o.OrderID] = o.Outcome()
			if o.Run.Replayed() != last+1 {
				t.Errorf("counts went from %d to %d", last, o.Run.Replayed())
			}
			last = o.Run.Replayed()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if run.Summary() != "replayed 4: 3 succeeded, 0 duplicate, 1 failed" || run.Interrupted || run.WalkErr != nil {
		t.Fatalf("run %+v: %s", run, run.Summary())
	}
	if seen[31] != "succeeded" || seen[32] != "succeeded" || seen[33] != "succeeded" || seen[34] != "failed" {
		t.Fatalf("outcomes %v", seen)
	}
	var unknown *domain.UnknownSKUsError
	if !errors.As(run.FirstFailure, &unknown) {
		t.Errorf("first failure %v, want order 34's unknown SKUs", run.FirstFailure)
	}
	recs := st.Audit.Records
	if len(recs) != 1 || recs[0].Action != audit.OrdersReplay || recs[0].Outcome != "unknown_skus" ||
		recs[0].OrganizationID != apptest.IntakeOrg || recs[0].Actor != apptest.Operator {
		t.Fatalf("audit records %+v, want one of the run with the first failure's code", recs)
	}

	// Of one code, again: only 34 is left, and it fails again; a run of a
	// code that no order has is unchanged.
	st.Audit.Records = nil
	run, err = app.Intake.ReplayFailedOrders.Handle(ctx, intakeapp.ReplayFailedOrders{
		OrganizationID: apptest.IntakeOrg, AllFailed: true, Code: "no_warehouse", Actor: apptest.Operator})
	if err != nil || run.Replayed() != 0 || len(st.Audit.Records) != 1 || st.Audit.Records[0].Outcome != audit.Unchanged {
		t.Fatalf("a run of a code no order has: %+v %v %+v", run, err, st.Audit.Records)
	}
}

// One order: its result is told to Each; a duplicate is unchanged; an
// unknown organization fails the run before anything and is recorded.
func TestReplayFailedOrdersOne(t *testing.T) {
	st := intakeFixture()
	app := apptest.IntakeApp(st, domain.Sandbox)
	ctx := context.Background()
	if _, err := deliverBody(app, "t", orderBody(41, "NEW-5")); err == nil {
		t.Fatal("the order went through")
	}
	st.AddProduct(apptest.IntakeOrg, "prod_new5", "NEW-5")
	var got intakeapp.ReplayedOrder
	one := intakeapp.ReplayFailedOrders{OrganizationID: apptest.IntakeOrg, OrderID: 41, Actor: apptest.Operator,
		Each: func(o intakeapp.ReplayedOrder) { got = o }}
	run, err := app.Intake.ReplayFailedOrders.Handle(ctx, one)
	if err != nil || run.Succeeded != 1 || got.OrderID != 41 || got.Result.ShipmentID == "" || got.ShipmentOrSkip() != got.Result.ShipmentID {
		t.Fatalf("run %+v %v, order %+v", run, err, got)
	}
	run, err = app.Intake.ReplayFailedOrders.Handle(ctx, one)
	if err != nil || run.Duplicate != 1 || got.Outcome() != "duplicate" {
		t.Fatalf("again: %+v %v", run, err)
	}
	_, err = app.Intake.ReplayFailedOrders.Handle(ctx, intakeapp.ReplayFailedOrders{OrganizationID: "org_none", OrderID: 41,
		Actor: apptest.Operator})
	if !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("an unknown organization: %v", err)
	}
	var outcomes []audit.Outcome
	for _, r := range st.Audit.Records {
		outcomes = append(outcomes, r.Outcome)
	}
	if len(outcomes) != 3 || outcomes[0] != audit.Done || outcomes[1] != audit.Unchanged || outcomes[2] != "not_found" {
		t.Fatalf("audit outcomes %v, want done, unchanged, not_found", outcomes)
	}
}

// A stopped run (an interrupt, a client gone) replays nothing more, says
// so, and its record says the interrupt.
func TestReplayFailedOrdersStopped(t *testing.T) {
	st := intakeFixture()
	app := apptest.IntakeApp(st, domain.Sandbox)
	if _, err := deliverBody(app, "t", orderBody(51, "NEW-6")); err == nil {
		t.Fatal("the order went through")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	run, err := app.Intake.ReplayFailedOrders.Handle(ctx, intakeapp.ReplayFailedOrders{OrganizationID: apptest.IntakeOrg,
		AllFailed: true, Actor: apptest.Operator})
	if err == nil && (!run.Interrupted || run.Replayed() != 0) {
		t.Fatalf("a stopped run: %+v", run)
	}
	if len(st.Audit.Records) != 1 || st.Audit.Records[0].Outcome == audit.Done {
		t.Fatalf("audit %+v, want one record of the stopped run", st.Audit.Records)
	}
}
