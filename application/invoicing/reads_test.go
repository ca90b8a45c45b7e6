package invoicing_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/application/apptest"
	invoicingapp "github.com/acme3pl/fulfillment/application/invoicing"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/domaintest"
	"github.com/acme3pl/fulfillment/domain/invoicing"
	"github.com/acme3pl/fulfillment/ports"
	invoicingports "github.com/acme3pl/fulfillment/ports/invoicing"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// invoiceRepo is an in-memory invoicingports.InvoiceRepository that records what it
// was asked and answers with what the test put in it.
type invoiceRepo struct {
	invoices []*invoicing.Invoice
	more     bool
	err      error

	listCalls []invoiceListCall
	getCalls  []string // "org/id"
}

type invoiceListCall struct {
	org    string
	filter invoicingports.InvoiceFilter
	page   ports.Page
}

func (r *invoiceRepo) List(_ context.Context, org string, f invoicingports.InvoiceFilter, p ports.Page) ([]*invoicing.Invoice, bool, error) {
	r.listCalls = append(r.listCalls, invoiceListCall{org: org, filter: f, page: p})
	if r.err != nil {
		return nil, false, r.err
	}
	return r.invoices, r.more, nil
}

func (r *invoiceRepo) Get(_ context.Context, org, id string) (*invoicing.Invoice, error) {
	r.getCalls = append(r.getCalls, org+"/"+id)
	if r.err != nil {
		return nil, r.err
	}
	for _, inv := range r.invoices {
		if inv.OrganizationID() == org && inv.ID() == id && inv.Visible() {
			return inv, nil
		}
	}
	return nil, domain.ErrNotFound
}

// invoiceApp builds the decorated application on the fake, with spans
// recorded in memory.
func invoiceApp(repo *invoiceRepo) (*apptest.App, *tracetest.SpanRecorder) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	app := invoicingapp.New(application.Deps[invoicingports.Repositories]{
		Repos:  invoicingports.Repositories{Invoices: repo},
		Tracer: tp.Tracer("test"),
		Log:    slog.New(slog.DiscardHandler),
	})
	return &apptest.App{Invoicing: app}, rec
}

func invoiceFixture(t *testing.T, org, id string, status invoicing.InvoiceStatus) *invoicing.Invoice {
	t.Helper()
	at := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	inv, err := invoicing.NewInvoice(invoicing.InvoiceParams{
		ID: id, OrganizationID: org, Key: "INV-" + id, Status: status, Name: "Storage", Currency: "USD",
		DueDate: at, CreatedAt: at, UpdatedAt: at,
	})
	if err != nil {
		t.Fatal(err)
	}
	return inv
}

func TestListInvoicesPassesTheFilterWithDefaults(t *testing.T) {
	tests := []struct {
		name string
		in   invoicingapp.ListInvoices
		want invoicingports.InvoiceFilter
	}{
		{name: "defaults: every visible status, newest first by createdAt",
			in:   invoicingapp.ListInvoices{},
			want: invoicingports.InvoiceFilter{SortBy: invoicingports.InvoicesByCreatedAt}},
		{name: "status, sort and order",
			in:   invoicingapp.ListInvoices{Status: invoicing.InvoiceCollecting, SortBy: invoicingports.InvoicesByDueDate, Ascending: true},
			want: invoicingports.InvoiceFilter{Status: invoicing.InvoiceCollecting, SortBy: invoicingports.InvoicesByDueDate, Ascending: true}},
		{name: "search is trimmed",
			in:   invoicingapp.ListInvoices{Search: " \t Pallet storage \u00a0", SortBy: invoicingports.InvoicesByUpdatedAt},
			want: invoicingports.InvoiceFilter{Search: "Pallet storage", SortBy: invoicingports.InvoicesByUpdatedAt}},
		{name: "blank search does not filter",
			in:   invoicingapp.ListInvoices{Search: "   "},
			want: invoicingports.InvoiceFilter{SortBy: invoicingports.InvoicesByCreatedAt}},
		{name: "wildcards are passed as they are",
			in:   invoicingapp.ListInvoices{Search: `50%_off\`},
			want: invoicingports.InvoiceFilter{Search: `50%_off\`, SortBy: invoicingports.InvoicesByCreatedAt}},
		{name: "200 characters",
			in:   invoicingapp.ListInvoices{Search: strings.Repeat("é", 200)},
			want: invoicingports.InvoiceFilter{Search: strings.Repeat("é", 200), SortBy: invoicingports.InvoicesByCreatedAt}},
		{name: "200 characters once trimmed",
			in:   invoicingapp.ListInvoices{Search: "  " + strings.Repeat("a", 200) + "  "},
			want: invoicingports.InvoiceFilter{Search: strings.Repeat("a", 200), SortBy: invoicingports.InvoicesByCreatedAt}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			repo := &invoiceRepo{invoices: []*invoicing.Invoice{invoiceFixture(t, "org_inv_a", "inv_1", invoicing.InvoicePaid)}, more: true}
			app, _ := invoiceApp(repo)
			in := tt.in
			in.OrganizationID, in.Page = "org_inv_a", ports.Page{Skip: 20, Take: 5}
			res, err := app.Invoicing.ListInvoices.Handle(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Items) != 1 || !res.More {
				t.Fatalf("result %+v, want the repository's page and more", res)
			}
			want := invoiceListCall{org: "org_inv_a", filter: tt.want, page: ports.Page{Skip: 20, Take: 5}}
			if len(repo.listCalls) != 1 || repo.listCalls[0] != want {
				t.Fatalf("repository asked %+v, want %+v", repo.listCalls, want)
			}
		})
	}
}

func TestListInvoicesRefusesInvalidInput(t *testing.T) {
	tests := []struct {
		name      string
		in        invoicingapp.ListInvoices
		wantField string
	}{
		{name: "201 characters", in: invoicingapp.ListInvoices{Search: strings.Repeat("é", 201)}, wantField: "search"},
		{name: "NUL", in: invoicingapp.ListInvoices{Search: "a\x00b"}, wantField: "search"},
		{name: "newline inside", in: invoicingapp.ListInvoices{Search: "storage\nnet"}, wantField: "search"},
		{name: "invalid UTF-8", in: invoicingapp.ListInvoices{Search: "caf\xe9"}, wantField: "search"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			repo := &invoiceRepo{}
			app, _ := invoiceApp(repo)
			tt.in.OrganizationID, tt.in.Page = "org_inv_a", ports.Page{Take: 10}
			_, err := app.Invoicing.ListInvoices.Handle(context.Background(), tt.in)
			domaintest.MatchField(t, err, tt.wantField)
			if len(repo.listCalls) != 0 {
				t.Fatalf("the repository was asked %+v", repo.listCalls)
			}
		})
	}
}

func TestListInvoicesPassesRepositoryErrors(t *testing.T) {
	repo := &invoiceRepo{err: domain.ErrUnavailable}
	app, _ := invoiceApp(repo)
	_, err := app.Invoicing.ListInvoices.Handle(context.Background(), invoicingapp.ListInvoices{OrganizationID: "org_inv_a"})
	if !errors.Is(err, domain.ErrUnavailable) {
		t.Fatalf("error %v, want ErrUnavailable", err)
	}
}

func TestParseInvoiceSortParameters(t *testing.T) {
	sortBy := map[string]invoicingports.InvoiceSortKey{
		"createdAt": invoicingports.InvoicesByCreatedAt, "updatedAt": invoicingports.InvoicesByUpdatedAt, "dueDate": invoicingports.InvoicesByDueDate,
	}
	for in, want := range sortBy {
		if got, err := invoicingapp.ParseInvoiceSortBy(in); err != nil || got != want {
			t.Errorf("ParseInvoiceSortBy(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "createdat", "created_at", "id", "name"} {
		_, err := invoicingapp.ParseInvoiceSortBy(in)
		domaintest.MatchField(t, err, "sortBy")
	}
	for in, wantAscending := range map[string]bool{"asc": true, "desc": false} {
		if got, err := invoicingapp.ParseInvoiceSortOrder(in); err != nil || got != wantAscending {
			t.Errorf("ParseInvoiceSortOrder(%q) = %v, %v; want %v", in, got, err, wantAscending)
		}
	}
	for _, in := range []string{"", "ASC", "ascending", "up"} {
		_, err := invoicingapp.ParseInvoiceSortOrder(in)
		domaintest.MatchField(t, err, "sortOrder")
	}
}

func TestListInvoicesSpanCarriesTheOrganization(t *testing.T) {
	app, rec := invoiceApp(&invoiceRepo{})
	if _, err := app.Invoicing.ListInvoices.Handle(context.Background(), invoicingapp.ListInvoices{OrganizationID: "org_inv_span"}); err != nil {
		t.Fatal(err)
	}
	spans := rec.Ended()
	if len(spans) != 1 || spans[0].Name() != "ListInvoices" {
		t.Fatalf("spans %v, want one ListInvoices", spans)
	}
	want := attribute.String("organization.id", "org_inv_span")
	for _, a := range spans[0].Attributes() {
		if a == want {
			return
		}
	}
	t.Fatalf("span attributes %v lack %v", spans[0].Attributes(), want)
}

func TestGetInvoice(t *testing.T) {
	tests := []struct {
		name      string
		org, id   string
		wantID    string
		wantErr   error
		wantAsked bool // whether the repository is asked at all
	}{
		{name: "own visible invoice", org: "org_inv_a", id: "inv_a1", wantID: "inv_a1", wantAsked: true},
		{name: "another organization's", org: "org_inv_b", id: "inv_a1", wantErr: domain.ErrNotFound, wantAsked: true},
		{name: "draft", org: "org_inv_a", id: "inv_a_draft", wantErr: domain.ErrNotFound, wantAsked: true},
		{name: "unknown", org: "org_inv_a", id: "inv_nope", wantErr: domain.ErrNotFound, wantAsked: true},
		{name: "SQL in the path", org: "org_inv_a", id: "' OR 1=1", wantErr: domain.ErrNotFound},
		{name: "empty", org: "org_inv_a", id: "", wantErr: domain.ErrNotFound},
		{name: "too long", org: "org_inv_a", id: "inv_" + string(make([]byte, 80)), wantErr: domain.ErrNotFound},
		{name: "percent", org: "org_inv_a", id: "inv_%", wantErr: domain.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			repo := &invoiceRepo{invoices: []*invoicing.Invoice{
				invoiceFixture(t, "org_inv_a", "inv_a1", invoicing.InvoiceUnpaid),
				invoiceFixture(t, "org_inv_a", "inv_a_draft", invoicing.InvoiceDraft),
			}}
			app, rec := invoiceApp(repo)
			inv, err := app.Invoicing.GetInvoice.Handle(context.Background(), invoicingapp.GetInvoice{OrganizationID: tt.org, ID: tt.id})
			if tt.wantErr != nil {
				domaintest.MatchErr(t, err, tt.wantErr)
			} else if err != nil || inv.ID() != tt.wantID {
				t.Fatalf("got %v, %v; want invoice %s", inv, err, tt.wantID)
			}
			if asked := len(repo.getCalls) == 1; asked != tt.wantAsked {
				t.Fatalf("repository calls %v, want asked=%v", repo.getCalls, tt.wantAsked)
			}
			if spans := rec.Ended(); len(spans) != 1 || spans[0].Name() != "GetInvoice" {
				t.Fatalf("spans %v, want one GetInvoice", spans)
			}
		})
	}
}
