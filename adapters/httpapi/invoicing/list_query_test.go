package invoicing_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/acme3pl/fulfillment/adapters/httpapi"
	invoicinghttp "github.com/acme3pl/fulfillment/adapters/httpapi/invoicing"
	"github.com/acme3pl/fulfillment/adapters/httpapi/routetest"
	invoicingapp "github.com/acme3pl/fulfillment/application/invoicing"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/invoicing"
	"github.com/acme3pl/fulfillment/ports"
	invoicingports "github.com/acme3pl/fulfillment/ports/invoicing"
)

// The invoice list's parameters are read in one place, every invalid one
// collected, and the answer names the first in the order skip, take,
// status, sortBy, sortOrder, search.
func TestListInvoicesQuery(t *testing.T) {
	tests := []struct {
		query      string
		want       invoicingapp.ListInvoices
		wantFields []string // the parameters the error names, first the one the answer names
	}{
		{query: "", want: invoicingapp.ListInvoices{Page: ports.Page{Take: 10}}},
		{query: "status=paid&sortBy=dueDate&sortOrder=asc&search=+pallet+&skip=20&take=5",
			want: invoicingapp.ListInvoices{Status: invoicing.InvoicePaid, SortBy: invoicingports.InvoicesByDueDate, Ascending: true,
				Search: "pallet", Page: ports.Page{Skip: 20, Take: 5}}},
		{query: "sortOrder=desc&sortOrder=asc", want: invoicingapp.ListInvoices{Ascending: true, Page: ports.Page{Take: 10}}},
		{query: "status=draft&sortBy=name", wantFields: []string{"status", "sortBy"}},
		{query: "search=a%00b&sortOrder=up", wantFields: []string{"sortOrder", "search"}},
		{query: "status=bogus&take=0", wantFields: []string{"take", "status"}},
		{query: "search=%FF&sortBy=&status=&take=11&skip=x&sortOrder=DESC",
			wantFields: []string{"skip", "take", "status", "sortBy", "sortOrder", "search"}},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			var first string
			if len(tt.wantFields) > 0 {
				first = tt.wantFields[0]
			}
			err := routetest.CheckQuery(t, "ListInvoicesQuery", invoicinghttp.ListInvoicesQuery, tt.query, tt.want, first)
			if first == "" {
				return
			}
			if p := httpapi.ProblemFor(err); p.Status != 400 || p.Code != "invalid_parameter" || p.Parameter != first {
				t.Errorf("problem %+v, want 400 invalid_parameter naming %q", p, first)
			}
			joined, ok := err.(interface{ Unwrap() []error })
			if !ok {
				t.Fatalf("%T is not the list of every invalid parameter", err)
			}
			var fields []string
			for _, e := range joined.Unwrap() {
				var ve *domain.ValidationError
				if errors.As(e, &ve) {
					fields = append(fields, ve.Field)
				}
			}
			if !slices.Equal(fields, tt.wantFields) {
				t.Errorf("the error names %v, want %v", fields, tt.wantFields)
			}
		})
	}
}
