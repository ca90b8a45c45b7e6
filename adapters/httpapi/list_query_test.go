package httpapi_test

import (
	"net/http/httptest"
	"testing"

	"github.com/acme3pl/fulfillment/adapters/httpapi"
	"github.com/acme3pl/fulfillment/adapters/httpapi/routetest"
	"github.com/acme3pl/fulfillment/ports"
)

// A list's query: its page, and the link to the next page (the invoice
// list's own parameters: invoicing/list_query_test.go).

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
			_ = routetest.CheckQuery(t, "ParsePage", httpapi.ParsePage, tt.query, tt.want, tt.wantField)
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
