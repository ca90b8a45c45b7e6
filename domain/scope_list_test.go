package domain_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/acme3pl/fulfillment/domain"
)

func TestParseScopeList(t *testing.T) {
	got, err := domain.ParseScopeList(" invoices, ,shipments ")
	if err != nil || !reflect.DeepEqual(got, []domain.Scope{domain.ScopeInvoices, domain.ScopeShipments}) {
		t.Fatalf("got %v %v", got, err)
	}
	if _, err := domain.ParseScopeList(" , "); !errors.Is(err, domain.ErrNoScope) {
		t.Errorf("no name: %v, want ErrNoScope", err)
	}
	if _, err := domain.ParseScopeList("invoices,warehouse"); err == nil || errors.Is(err, domain.ErrNoScope) {
		t.Errorf("a name that is not a scope: %v", err)
	}
}
