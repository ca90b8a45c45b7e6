package intake_test

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/intake"
)

var receiptT0 = time.Date(2026, 11, 22, 1, 2, 3, 0, time.UTC)

// receiptIn is a receipt of order 7 after two attempts, the first refused,
// in status.
func receiptIn(status intake.ReceiptStatus) intake.OrderReceiptParams {
	return intake.OrderReceiptParams{
		OrganizationID: "org_a", OrderID: 7, Status: status, Attempts: 2, LastError: "unknown_skus",
		TraceID: "trace-2", FirstReceived: receiptT0, LastReceived: receiptT0.Add(time.Minute),
	}
}

func TestOrderReceiptTransitions(t *testing.T) {
	succeed := func(id string) func(*intake.OrderReceipt) error {
		return func(r *intake.OrderReceipt) error { return r.Succeed(id) }
	}
	skip := func(reason intake.SkipReason) func(*intake.OrderReceipt) error {
		return func(r *intake.OrderReceipt) error { return r.Skip(reason) }
	}
	fail := func(code string) func(*intake.OrderReceipt) error {
		return func(r *intake.OrderReceipt) error { return r.Fail(code, nil) }
	}
	processing, failed := receiptIn(intake.ReceiptProcessing), receiptIn(intake.ReceiptFailed)
	ended := func(status intake.ReceiptStatus, shipment string, skipped intake.SkipReason, lastError string) intake.OrderReceiptParams {
		p := processing
		p.Status, p.ShipmentID, p.Skipped, p.LastError = status, shipment, skipped, lastError
		return p
	}
	succeeded := ended(intake.ReceiptSucceeded, "shp_1", "", "unknown_skus")
	tests := []struct {
		name    string
		from    intake.OrderReceiptParams
		do      func(*intake.OrderReceipt) error
		want    intake.OrderReceiptParams // the receipt afterwards; from when the transition is refused
		wantErr error                     // a sentinel; errAny for any error
	}{
		{name: "a claimed receipt succeeds with its shipment, the last error kept", from: processing, do: succeed("shp_9"),
			want: ended(intake.ReceiptSucceeded, "shp_9", "", "unknown_skus")},
		{name: "a claimed receipt is skipped: nothing to ship", from: processing, do: skip(intake.SkipNoShippableItems),
			want: ended(intake.ReceiptSucceeded, "", intake.SkipNoShippableItems, "unknown_skus")},
		{name: "a claimed receipt is skipped: order cancelled", from: processing, do: skip(intake.SkipOrderCancelled),
			want: ended(intake.ReceiptSucceeded, "", intake.SkipOrderCancelled, "unknown_skus")},
		{name: "a claimed receipt fails with the code answered", from: processing, do: fail("no_warehouse"),
			want: ended(intake.ReceiptFailed, "", "", "no_warehouse")},
		{name: "a success without a shipment", from: processing, do: succeed(""), want: processing, wantErr: errAny},
		{name: "a skip without a known reason", from: processing, do: skip("out_of_stock"), want: processing, wantErr: errAny},
		{name: "a failure without a code", from: processing, do: fail(""), want: processing, wantErr: errAny},
		{name: "succeeded is final: succeed", from: succeeded, do: succeed("shp_2"), want: succeeded, wantErr: domain.ErrInvalidState},
		{name: "succeeded is final: skip", from: succeeded, do: skip(intake.SkipOrderCancelled), want: succeeded, wantErr: domain.ErrInvalidState},
		{name: "succeeded is final: fail", from: succeeded, do: fail("internal"), want: succeeded, wantErr: domain.ErrInvalidState},
		{name: "a failed receipt is claimed before it ends again", from: failed, do: succeed("shp_2"), want: failed, wantErr: domain.ErrInvalidState},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := intake.RehydrateOrderReceipt(tt.from)
			err := tt.do(r)
			switch {
			case tt.wantErr == nil && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tt.wantErr != nil && err == nil:
				t.Fatalf("no error, want %v", tt.wantErr)
			case tt.wantErr != nil && !errors.Is(tt.wantErr, errAny) && !errors.Is(err, tt.wantErr):
				t.Fatalf("error %v, want %v", err, tt.wantErr)
			}
			if want := intake.RehydrateOrderReceipt(tt.want); !reflect.DeepEqual(r, want) {
				t.Fatalf("receipt\n got %+v\nwant %+v", r, want)
			}
		})
	}
}

// errAny stands for any error in the tables of this file.
var errAny = errors.New("any error")

// A succeeded receipt names exactly one of its shipment and its skip
// reason, whichever transition made it.
func TestOrderReceiptSuccessHasAShipmentOrASkip(t *testing.T) {
	for _, end := range []func(*intake.OrderReceipt) error{
		func(r *intake.OrderReceipt) error { return r.Succeed("shp_1") },
		func(r *intake.OrderReceipt) error { return r.Skip(intake.SkipOrderCancelled) },
	} {
		r := intake.RehydrateOrderReceipt(receiptIn(intake.ReceiptProcessing))
		if err := end(r); err != nil {
			t.Fatal(err)
		}
		if r.Status() != intake.ReceiptSucceeded || (r.ShipmentID() == "") == (r.Skipped() == "") {
			t.Fatalf("status %s shipment %q skipped %q: want succeeded with exactly one of them", r.Status(), r.ShipmentID(), r.Skipped())
		}
	}
}

func TestOrderReceiptDuplicate(t *testing.T) {
	tests := []struct {
		status intake.ReceiptStatus
		want   bool
	}{
		{intake.ReceiptSucceeded, true},
		{intake.ReceiptProcessing, false},
		{intake.ReceiptFailed, false},
	}
	for _, tt := range tests {
		t.Run(string(tt.status), func(t *testing.T) {
			r := intake.RehydrateOrderReceipt(receiptIn(tt.status))
			if got := r.Duplicate(); got != tt.want {
				t.Fatalf("Duplicate() = %v, want %v", got, tt.want)
			}
		})
	}
}

// A delivery's claim, and the record of a delivery that failed outside its
// transaction, from each state a stored receipt can be in (or none).
func TestOrderReceiptDeliveries(t *testing.T) {
	num := int64(1001)
	d := intake.OrderDelivery{OrganizationID: "org_a", OrderID: 7, OrderNumber: &num, TraceID: "trace-3", ReceivedAt: receiptT0.Add(time.Hour)}
	late := d
	late.ReceivedAt = receiptT0 // delivered late: the last delivery's time does not go back
	with := func(p intake.OrderReceiptParams, set func(*intake.OrderReceiptParams)) intake.OrderReceiptParams {
		set(&p)
		return p
	}
	succeeded := with(receiptIn(intake.ReceiptSucceeded), func(p *intake.OrderReceiptParams) { p.ShipmentID = "shp_1" })
	failed := receiptIn(intake.ReceiptFailed)
	claim := func(stored *intake.OrderReceipt, d intake.OrderDelivery) *intake.OrderReceipt {
		return intake.ClaimOrderReceipt(stored, d)
	}
	fail := func(stored *intake.OrderReceipt, d intake.OrderDelivery) *intake.OrderReceipt {
		return intake.RecordFailedDelivery(stored, d, "unavailable")
	}
	tests := []struct {
		name   string
		stored *intake.OrderReceiptParams // nil: the order's first delivery
		d      intake.OrderDelivery
		do     func(*intake.OrderReceipt, intake.OrderDelivery) *intake.OrderReceipt
		want   intake.OrderReceiptParams
	}{
		{name: "first delivery: a new receipt, processing, one attempt", d: d, do: claim,
			want: intake.OrderReceiptParams{OrganizationID: "org_a", OrderID: 7, OrderNumber: &num, Status: intake.ReceiptProcessing,
				Attempts: 1, TraceID: "trace-3", FirstReceived: d.ReceivedAt, LastReceived: d.ReceivedAt}},
		{name: "after a failure: processing again, one more attempt, the last error kept", stored: &failed, d: d, do: claim,
			want: with(failed, func(p *intake.OrderReceiptParams) {
				p.Status, p.Attempts, p.TraceID, p.OrderNumber, p.LastReceived = intake.ReceiptProcessing, 3, "trace-3", &num, d.ReceivedAt
			})},
		{name: "a duplicate: not an attempt, only the time moves", stored: &succeeded, d: d, do: claim,
			want: with(succeeded, func(p *intake.OrderReceiptParams) { p.OrderNumber, p.LastReceived = &num, d.ReceivedAt })},
		{name: "a late duplicate: the time does not go back", stored: &succeeded, d: late, do: claim,
			want: with(succeeded, func(p *intake.OrderReceiptParams) { p.OrderNumber = &num })},
		{name: "a failure of the first delivery: a failed receipt, one attempt", d: d, do: fail,
			want: intake.OrderReceiptParams{OrganizationID: "org_a", OrderID: 7, OrderNumber: &num, Status: intake.ReceiptFailed,
				Attempts: 1, LastError: "unavailable", TraceID: "trace-3", FirstReceived: d.ReceivedAt, LastReceived: d.ReceivedAt}},
		{name: "a failure after a failure: one more attempt, its code", stored: &failed, d: d, do: fail,
			want: with(failed, func(p *intake.OrderReceiptParams) {
				p.Attempts, p.LastError, p.TraceID, p.OrderNumber, p.LastReceived = 3, "unavailable", "trace-3", &num, d.ReceivedAt
			})},
		{name: "a failure after a success changes nothing", stored: &succeeded, d: d, do: fail, want: succeeded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stored *intake.OrderReceipt
			if tt.stored != nil {
				stored = intake.RehydrateOrderReceipt(*tt.stored)
			}
			before := fmt.Sprintf("%+v", stored)
			got := tt.do(stored, tt.d)
			if want := intake.RehydrateOrderReceipt(tt.want); !reflect.DeepEqual(got, want) {
				t.Fatalf("receipt\n got %+v\nwant %+v", got, want)
			}
			if after := fmt.Sprintf("%+v", stored); after != before {
				t.Fatalf("the stored receipt changed: %s, was %s", after, before)
			}
		})
	}
}

// A failed attempt keeps the delivery's body, a later failure replaces it,
// and a success drops it; a receipt read from storage tells only the size.
func TestOrderReceiptKeepsTheFailedBody(t *testing.T) {
	first, second := []byte(`{"id":7,"a":1}`), []byte(`{"id":7,"a":22}`)
	r := intake.RehydrateOrderReceipt(receiptIn(intake.ReceiptProcessing))
	if r.PayloadKept() || r.Payload() != nil {
		t.Fatalf("a claimed receipt without a kept body: kept %v payload %q", r.PayloadKept(), r.Payload())
	}
	if err := r.Fail("unknown_skus", first); err != nil {
		t.Fatal(err)
	}
	if !r.PayloadKept() || r.PayloadBytes() != len(first) || string(r.Payload()) != string(first) {
		t.Fatalf("after a failure: kept %v bytes %d payload %q", r.PayloadKept(), r.PayloadBytes(), r.Payload())
	}
	d := intake.OrderDelivery{OrganizationID: "org_a", OrderID: 7, TraceID: "t", ReceivedAt: receiptT0.Add(time.Hour), Payload: second}
	r = intake.RecordFailedDelivery(r, d, "unavailable")
	if !r.PayloadKept() || r.PayloadBytes() != len(second) || string(r.Payload()) != string(second) {
		t.Fatalf("after a recorded failure: kept %v bytes %d payload %q", r.PayloadKept(), r.PayloadBytes(), r.Payload())
	}
	for _, end := range []func(*intake.OrderReceipt) error{
		func(r *intake.OrderReceipt) error { return r.Succeed("shp_1") },
		func(r *intake.OrderReceipt) error { return r.Skip(intake.SkipOrderCancelled) },
	} {
		r := intake.ClaimOrderReceipt(r, d)
		if err := end(r); err != nil {
			t.Fatal(err)
		}
		if r.PayloadKept() || r.PayloadBytes() != 0 || r.Payload() != nil {
			t.Fatalf("after a success: kept %v bytes %d payload %q", r.PayloadKept(), r.PayloadBytes(), r.Payload())
		}
	}
	n := 123
	stored := receiptIn(intake.ReceiptFailed)
	stored.PayloadBytes = &n
	if r := intake.RehydrateOrderReceipt(stored); !r.PayloadKept() || r.PayloadBytes() != n || r.Payload() != nil {
		t.Fatalf("read from storage: kept %v bytes %d payload %q", r.PayloadKept(), r.PayloadBytes(), r.Payload())
	}
}
