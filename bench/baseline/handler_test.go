package main

import (
	"fmt"
	"net/url"
	"testing"

	"github.com/acme3pl/fulfillment/domain"
)

// The baseline writes quantities from numeric(22,3) text; the service from
// domain.Quantity. The bodies must be the same bytes.
func TestTrimQuantityAsTheService(t *testing.T) {
	for _, milli := range []int64{0, 1, 5, 10, 100, 120, 1000, 1500, 1005, 62000, 999_999, 1_000_000_000_000, 10_000} {
		q, err := domain.QuantityFromMilli(milli)
		if err != nil {
			t.Fatal(err)
		}
		numeric := fmt.Sprintf("%d.%03d", milli/1000, milli%1000) // as PostgreSQL writes numeric(22,3)
		if got, want := trimQuantity(numeric), q.String(); got != want {
			t.Errorf("trimQuantity(%q) = %q, the service writes %q", numeric, got, want)
		}
	}
}

func TestListParams(t *testing.T) {
	skip, take, column, asc, status, err := listParams(url.Values{"skip": {"3"}, "take": {"5", "2"}, "sortBy": {"dueDate"}, "sortOrder": {"asc"}, "status": {"paid"}})
	if err != nil || skip != 3 || take != 2 || column != "due_date" || !asc || status != "paid" {
		t.Fatalf("%d %d %q %v %q %v", skip, take, column, asc, status, err)
	}
	for _, bad := range []url.Values{{"take": {"11"}}, {"skip": {"-1"}}, {"status": {"draft"}}, {"sortBy": {""}}, {"sortOrder": {"DESC"}}, {"search": {"x"}}} {
		if _, _, _, _, _, err := listParams(bad); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}
