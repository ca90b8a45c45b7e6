package invoicing_test

import (
	"context"
	"testing"

	invoicingapp "github.com/acme3pl/fulfillment/application/invoicing"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/domaintest"
	"github.com/acme3pl/fulfillment/domain/invoicing"
)

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
