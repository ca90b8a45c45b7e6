package postgres_test

// Kept bodies of failed orders: stored by the statements that record a
// failure, deleted by the one that records a success, listed without being
// loaded, purged past retention by any number of purgers at once.

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/acme3pl/fulfillment/adapters/postgres"
	pgintake "github.com/acme3pl/fulfillment/adapters/postgres/intake"
	"github.com/acme3pl/fulfillment/adapters/postgres/pgtest"
	intakeapp "github.com/acme3pl/fulfillment/application/intake"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/intake"
	"github.com/acme3pl/fulfillment/ports"
	intakeports "github.com/acme3pl/fulfillment/ports/intake"
)

// keptPayload returns the body stored with an order's receipt (nil: none).
func keptPayload(t *testing.T, db *bun.DB, org string, order int64) []byte {
	t.Helper()
	return scanQuery[[]byte](t, db, "SELECT payload FROM order_receipts WHERE organization_id = ? AND order_id = ?", org, order)
}

// receiveBody runs one delivery of o with its body through the intake.
func receiveBody(app *intakeapp.UseCases, org string, o intake.StorefrontOrder, body []byte) (intakeapp.StorefrontOrderResult, error) {
	return app.ReceiveStorefrontOrder.Handle(context.Background(), intakeapp.ReceiveStorefrontOrder{
		OrganizationID: org, TraceID: "0123456789abcdef0123456789abcdef", Order: o, Body: body,
	})
}

func TestFailedDeliveriesKeepTheirBody(t *testing.T) {
	db, org := intakeSeeded(t, 1)
	app := intakeApp(db, nil)
	repos := postgres.NewRepositories(db, pgintake.Repositories)
	ctx := context.Background()
	// Bytes as a storefront sends them, NUL-free but not valid UTF-8 in
	// places: kept byte for byte.
	first := []byte("{\"id\": 501, \"note\": \"Zo\xc3\xab \xff\"}")
	second := []byte(`{"id":501,"second":true}`)

	// Refused in its transaction (unknown SKU): kept with the receipt.
	if _, err := receiveBody(app, org, intakeOrderOf(501, "NOPE"), first); !errors.As(err, new(*domain.UnknownSKUsError)) {
		t.Fatalf("first delivery: %v, want unknown_skus", err)
	}
	if got := keptPayload(t, db, org, 501); !reflect.DeepEqual(got, first) {
		t.Fatalf("kept %q, want %q", got, first)
	}
	rec, err := repos.Receipts.Get(ctx, org, 501)
	if err != nil || !rec.PayloadKept() || rec.PayloadBytes() != len(first) {
		t.Fatalf("receipt: %v kept %v bytes %d, want %d", err, rec.PayloadKept(), rec.PayloadBytes(), len(first))
	}
	// Refused before processing (the payload could not be read, its ID
	// could): recorded by RecordFailure, which replaces the body.
	if _, err = app.RefuseStorefrontOrder.Handle(ctx, intakeapp.RefuseStorefrontOrder{
		OrganizationID: org, TraceID: "t", OrderID: 501, Body: second,
	}); err != nil {
		t.Fatalf("second delivery: %v", err)
	}
	if got := keptPayload(t, db, org, 501); !reflect.DeepEqual(got, second) {
		t.Fatalf("kept %q, want the second body %q", got, second)
	}
	rec, body, err := repos.Receipts.GetWithPayload(ctx, org, 501)
	if err != nil || !reflect.DeepEqual(body, second) || rec.PayloadBytes() != len(second) || rec.Attempts() != 2 {
		t.Fatalf("GetWithPayload: %v %q bytes %d attempts %d", err, body, rec.PayloadBytes(), rec.Attempts())
	}
	// Success deletes it in the statement that records the success.
	if _, err := receiveBody(app, org, intakeOrderOf(501, "SKU-1"), []byte(`{"id":501}`)); err != nil {
		t.Fatal(err)
	}
	if got := keptPayload(t, db, org, 501); got != nil {
		t.Fatalf("after the success the body is still kept: %q", got)
	}
	rec, err = repos.Receipts.Get(ctx, org, 501)
	if err != nil || rec.PayloadKept() || rec.Status() != intake.ReceiptSucceeded {
		t.Fatalf("receipt after success: %v %+v", err, rec)
	}
	// A refused delivery of a succeeded order keeps nothing.
	_, _ = receiveBody(app, org, intakeOrderOf(501, "NOPE"), first)
	if got := keptPayload(t, db, org, 501); got != nil {
		t.Fatalf("a refused redelivery of a succeeded order kept %q", got)
	}
	// The database refuses a body on a succeeded receipt.
	_, err = db.NewRaw("UPDATE order_receipts SET payload = '\\x00' WHERE organization_id = ? AND order_id = 501", org).Exec(ctx)
	if err == nil {
		t.Fatal("a succeeded receipt took a body")
	}
}

// The success path of the intake: the same statements, one each, and no
// write to the index of kept bodies.
func TestSuccessPathStatements(t *testing.T) {
	db, org := intakeSeeded(t, 2)
	app, rec, tracer := intakeTraced(db)
	ctx := context.Background()
	// Warm the prepared statements and the relation's pages.
	if _, err := receiveBody(app, org, intakeOrderOf(1, "SKU-1"), []byte("{}")); err != nil {
		t.Fatal(err)
	}
	var before int64
	if err := db.NewRaw("SELECT pg_relation_size('order_receipts_kept_idx')").Scan(ctx, &before); err != nil {
		t.Fatal(err)
	}
	tctx, root := tracer.Start(ctx, "delivery")
	_, err := app.ReceiveStorefrontOrder.Handle(tctx, intakeapp.ReceiveStorefrontOrder{
		OrganizationID: org, TraceID: "t", Order: intakeOrderOf(2, "SKU-1", "SKU-2"), Body: []byte(`{"id":2}`),
	})
	root.End()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range rec.Ended() {
		if s.SpanKind().String() == "client" && s.SpanContext().TraceID() == root.SpanContext().TraceID() {
			names = append(names, s.Name())
		}
	}
	// The claim with its reads, then the acceptance (reservation, shipment
	// and success in one statement): order_receipts.go's claimOrderSQL and
	// acceptOrderSQL.
	want := []string{"BEGIN", "SELECT", "UPDATE", "COMMIT"}
	if !reflect.DeepEqual(names, want) {
		t.Fatalf("statements of a created order %v, want %v", names, want)
	}
	for i := range 200 {
		if _, err := receiveBody(app, org, intakeOrderOf(int64(100+i), "SKU-1"), []byte(`{"id":1}`)); err != nil {
			t.Fatal(err)
		}
	}
	var after int64
	if err := db.NewRaw("SELECT pg_relation_size('order_receipts_kept_idx')").Scan(ctx, &after); err != nil {
		t.Fatal(err)
	}
	if after != before {
		t.Fatalf("the index of kept bodies grew from %d to %d bytes over orders that succeeded", before, after)
	}
}

func TestOrderReceiptList(t *testing.T) {
	db := pgtest.Open(t, testDSN)
	org, other := intakeOrgID(t), intakeOrgID(t)
	intakeSeed(t, org, 1)
	intakeSeed(t, other, 1)
	repos := postgres.NewRepositories(db, pgintake.Repositories)
	ctx := context.Background()
	t0 := time.Date(2026, 11, 22, 1, 0, 0, 0, time.UTC)
	record := func(org string, order int64, at time.Time, code string, body []byte) {
		t.Helper()
		d := intake.OrderDelivery{OrganizationID: org, OrderID: order, TraceID: "t", ReceivedAt: at, Payload: body}
		if _, err := repos.Receipts.RecordFailure(ctx, d, code); err != nil {
			t.Fatal(err)
		}
	}
	// Orders 1..5 fail at t0+order minutes; 6 and 7 fail at the same time
	// (the tiebreak: order ID, descending); 3 then succeeds.
	for i := int64(1); i <= 5; i++ {
		record(org, i, t0.Add(time.Duration(i)*time.Minute), "unknown_skus", []byte(fmt.Sprintf(`{"id":%d}`, i)))
	}
	record(org, 6, t0.Add(10*time.Minute), "no_warehouse", []byte(`{"id":6,"x":"yy"}`))
	record(org, 7, t0.Add(10*time.Minute), "no_warehouse", nil)
	record(other, 1, t0.Add(time.Hour), "unknown_skus", []byte(`{}`))
	err := postgres.NewUnitOfWork(db, pgintake.Repositories).Do(ctx, func(ctx context.Context, r intakeports.Repositories) error {
		rec, _, err := r.Receipts.Claim(ctx, intake.OrderDelivery{OrganizationID: org, OrderID: 3, TraceID: "t", ReceivedAt: t0.Add(4 * time.Minute)}, nil)
		if err != nil {
			return err
		}
		if err := rec.Skip(intake.SkipOrderCancelled); err != nil {
			return err
		}
		return r.Receipts.Finish(ctx, rec)
	})
	if err != nil {
		t.Fatal(err)
	}
	ids := func(f intakeports.ReceiptFilter, page ports.Page) ([]int64, bool) {
		t.Helper()
		rs, more, err := repos.Receipts.List(ctx, org, f, page)
		if err != nil {
			t.Fatal(err)
		}
		out := []int64{}
		for _, r := range rs {
			out = append(out, r.OrderID())
		}
		return out, more
	}
	all := ports.Page{Take: 10}
	tests := []struct {
		name     string
		filter   intakeports.ReceiptFilter
		page     ports.Page
		want     []int64
		wantMore bool
	}{
		{"every receipt, latest delivery first", intakeports.ReceiptFilter{}, all, []int64{7, 6, 5, 4, 3, 2, 1}, false},
		{"a page", intakeports.ReceiptFilter{}, ports.Page{Skip: 2, Take: 3}, []int64{5, 4, 3}, true},
		{"the last page", intakeports.ReceiptFilter{}, ports.Page{Skip: 5, Take: 3}, []int64{2, 1}, false},
		{"failed", intakeports.ReceiptFilter{Status: intake.ReceiptFailed}, all, []int64{7, 6, 5, 4, 2, 1}, false},
		{"succeeded", intakeports.ReceiptFilter{Status: intake.ReceiptSucceeded}, all, []int64{3}, false},
		{"by error", intakeports.ReceiptFilter{Error: "no_warehouse"}, all, []int64{7, 6}, false},
		{"by status and error", intakeports.ReceiptFilter{Status: intake.ReceiptFailed, Error: "unknown_skus"}, all, []int64{5, 4, 2, 1}, false},
		{"an error none has", intakeports.ReceiptFilter{Error: "internal"}, all, []int64{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, more := ids(tt.filter, tt.page)
			if !reflect.DeepEqual(got, tt.want) || more != tt.wantMore {
				t.Fatalf("got %v more %v, want %v more %v", got, more, tt.want, tt.wantMore)
			}
		})
	}
	rs, _, err := repos.Receipts.List(ctx, org, intakeports.ReceiptFilter{Error: "no_warehouse"}, all)
	if err != nil {
		t.Fatal(err)
	}
	if !rs[1].PayloadKept() || rs[1].PayloadBytes() != len(`{"id":6,"x":"yy"}`) || rs[0].PayloadKept() || rs[0].PayloadBytes() != 0 {
		t.Fatalf("sizes: 7 kept %v %d, 6 kept %v %d", rs[0].PayloadKept(), rs[0].PayloadBytes(), rs[1].PayloadKept(), rs[1].PayloadBytes())
	}

	kept, err := repos.Receipts.ListKept(ctx, org, "", 0, 10)
	if err != nil || !reflect.DeepEqual(kept, []int64{1, 2, 4, 5, 6}) {
		t.Fatalf("ListKept: %v %v, want 1 2 4 5 6", kept, err)
	}
	kept, err = repos.Receipts.ListKept(ctx, org, "", 2, 2)
	if err != nil || !reflect.DeepEqual(kept, []int64{4, 5}) {
		t.Fatalf("ListKept after 2, 2 of them: %v %v, want 4 5", kept, err)
	}
	// Of one code: the kept ones of the receipts failed with it.
	var want []int64
	for _, r := range rs {
		if r.PayloadKept() && r.Status() == intake.ReceiptFailed {
			want = append([]int64{r.OrderID()}, want...)
		}
	}
	kept, err = repos.Receipts.ListKept(ctx, org, "no_warehouse", 0, 10)
	if err != nil || len(want) == 0 || !reflect.DeepEqual(kept, want) {
		t.Fatalf("ListKept of no_warehouse: %v %v, want %v", kept, err, want)
	}
}

// Purgers on several connections at once (replicas) delete every body past
// retention exactly once between them, and nothing newer.
func TestPurgePayloadsConcurrently(t *testing.T) {
	db, org := intakeSeeded(t, 0)
	repos := postgres.NewRepositories(db, pgintake.Repositories)
	ctx := context.Background()
	now := time.Now().UTC()
	const old, fresh = 600, 20
	for i := range old + fresh {
		at := now.Add(-48 * time.Hour)
		if i >= old {
			at = now
		}
		d := intake.OrderDelivery{OrganizationID: org, OrderID: int64(i + 1), TraceID: "t", ReceivedAt: at, Payload: []byte(`{"a":1}`)}
		if _, err := repos.Receipts.RecordFailure(ctx, d, "unknown_skus"); err != nil {
			t.Fatal(err)
		}
	}
	cutoff := now.Add(-24 * time.Hour)
	// The purge is of every organization's: other tests' old bodies count.
	due := scanQuery[int](t, db, "SELECT count(*) FROM order_receipts WHERE payload IS NOT NULL AND last_received_at < ?", cutoff)
	if due < old {
		t.Fatalf("%d bodies due, want at least %d", due, old)
	}
	var (
		mu    sync.Mutex
		total int
		wg    sync.WaitGroup
	)
	for range 6 {
		wg.Go(func() {
			for {
				n, err := repos.Receipts.PurgePayloads(ctx, cutoff, 50)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				total += n
				mu.Unlock()
				if n == 0 {
					return
				}
			}
		})
	}
	wg.Wait()
	if total != due {
		t.Fatalf("purged %d, want each of the %d due once", total, due)
	}
	if n := scanQuery[int](t, db, "SELECT count(*) FROM order_receipts WHERE organization_id = ? AND payload IS NOT NULL", org); n != fresh {
		t.Fatalf("%d bodies left, want the %d fresh ones", n, fresh)
	}
	if n := scanQuery[int](t, db, "SELECT count(*) FROM order_receipts WHERE organization_id = ?", org); n != old+fresh {
		t.Fatalf("%d receipts, want all %d kept", n, old+fresh)
	}
	stats, err := repos.Receipts.FailedOrderStats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if stats.ByCode["unknown_skus"] < fresh || stats.Oldest.IsZero() {
		t.Fatalf("stats %+v, want at least %d unknown_skus and an oldest time", stats, fresh)
	}
}
