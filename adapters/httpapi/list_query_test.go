package httpapi_test

import (
	"errors"
	"net/http/httptest"
	"net/url"
	"slices"
	"testing"

	"github.com/acme3pl/fulfillment/adapters/httpapi"
	invoicingapp "github.com/acme3pl/fulfillment/application/invoicing"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/invoicing"
	"github.com/acme3pl/fulfillment/ports"
	invoicingports "github.com/acme3pl/fulfillment/ports/invoicing"
)

// A list's query: its page, the invoice list's own parameters, and the
// link to the next page.

func TestParsePage(t *testing.T) {
	tests := []struct {
		query     string
		want      ports.Page
		wantField string // the parameter a *domain.ValidationError names; "" for no error
	}{
		{"", ports.Page{Skip: 0, Take: 10}, ""},
		{"skip=0&take=1", ports.Page{Skip: 0, Take: 1}, ""},
		{"skip=20&take=10", ports.Page{Skip: 20, Take: 10}, ""},
		{"skip=5", ports.Page{Skip: 5, Take: 10}, ""},
		{"take=3", ports.Page{Skip: 0, Take: 3}, ""},
		{"other=x&take=2", ports.Page{Skip: 0, Take: 2}, ""},
		{"skip=1000000", ports.Page{Skip: 1_000_000, Take: 10}, ""},
		{"take=11", ports.Page{}, "take"},
		{"take=0", ports.Page{}, "take"},
		{"take=-1", ports.Page{}, "take"},
		{"take=abc", ports.Page{}, "take"},
		{"take=1.5", ports.Page{}, "take"},
		{"take=", ports.Page{}, "take"},
		{"take=%205", ports.Page{}, "take"},
		{"take=0x5", ports.Page{}, "take"},
		{"take=99999999999999999999999", ports.Page{}, "take"},
		{"skip=-1", ports.Page{}, "skip"},
		{"skip=abc", ports.Page{}, "skip"},
		{"skip=", ports.Page{}, "skip"},
		{"skip=1e3", ports.Page{}, "skip"},
		{"skip=1000001", ports.Page{}, "skip"},
		{"skip=99999999999999999999999", ports.Page{}, "skip"},
		{"skip=9223372036854775807", ports.Page{}, "skip"},
		{"skip=-1&take=abc", ports.Page{}, "skip"},
		// A repeated parameter: the last value counts, and must be valid.
		{"take=5&take=7", ports.Page{Skip: 0, Take: 7}, ""},
		{"take=5&take=11", ports.Page{}, "take"},
		{"take=11&take=5", ports.Page{Skip: 0, Take: 5}, ""},
		{"skip=3&skip=-1", ports.Page{}, "skip"},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			_ = checkQuery(t, "ParsePage", httpapi.ParsePage, tt.query, tt.want, tt.wantField)
		})
	}
}

// checkQuery checks that parse reads query as want, or when wantField is
// not "" refuses it with a *domain.ValidationError naming wantField (the
// first one that errors.As finds), and returns parse's error.
func checkQuery[T comparable](t *testing.T, name string, parse func(url.Values) (T, error), query string, want T, wantField string) error {
	t.Helper()
	q, err := url.ParseQuery(query)
	if err != nil {
		t.Fatalf("bad test query %q: %v", query, err)
	}
	got, err := parse(q)
	if wantField == "" {
		if err != nil {
			t.Fatalf("%s(%q) = %v, want no error", name, query, err)
		}
		if got != want {
			t.Errorf("%s(%q) = %+v, want %+v", name, query, got, want)
		}
		return nil
	}
	var ve *domain.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("%s(%q) = %v (%T), want a *domain.ValidationError", name, query, err, err)
	}
	if ve.Field != wantField {
		t.Fatalf("%s(%q) names %q first, want %q", name, query, ve.Field, wantField)
	}
	return err
}

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
			err := checkQuery(t, "ListInvoicesQuery", httpapi.ListInvoicesQuery, tt.query, tt.want, first)
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

func TestSetNextLink(t *testing.T) {
	tests := []struct {
		name   string
		target string
		page   ports.Page
		more   bool
		want   string // the Link header; "" for none
	}{
		{"more after the first page", "/v0/invoices", ports.Page{Skip: 0, Take: 10}, true,
			`</v0/invoices?skip=10&take=10>; rel="next"`},
		{"keeps the other parameters", "/v0/invoices?status=paid&search=a+b&skip=4&take=2", ports.Page{Skip: 4, Take: 2}, true,
			`</v0/invoices?search=a+b&skip=6&status=paid&take=2>; rel="next"`},
		{"keeps repeated parameters", "/v0/shipments?status=draft&status=pending&take=3", ports.Page{Skip: 0, Take: 3}, true,
			`</v0/shipments?skip=3&status=draft&status=pending&take=3>; rel="next"`},
		{"escapes values", "/v0/invoices?search=%26%3D%3E", ports.Page{Skip: 0, Take: 10}, true,
			`</v0/invoices?search=%26%3D%3E&skip=10&take=10>; rel="next"`},
		{"no more records", "/v0/invoices?skip=10", ports.Page{Skip: 10, Take: 10}, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			httpapi.SetNextLink(w, httptest.NewRequest("GET", tt.target, nil), tt.page, tt.more)
			if got := w.Header().Get("Link"); got != tt.want {
				t.Errorf("Link = %q, want %q", got, tt.want)
			}
			if _, set := w.Header()["Link"]; set != (tt.want != "") {
				t.Errorf("Link header present = %v, want %v", set, tt.want != "")
			}
		})
	}
}
