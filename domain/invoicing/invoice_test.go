package invoicing_test

import (
	"math"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/domaintest"
	"github.com/acme3pl/fulfillment/domain/invoicing"
)

func TestParseInvoiceStatus(t *testing.T) {
	tests := []struct {
		in          string
		want        invoicing.InvoiceStatus
		wantErr     error
		wantVisible bool
	}{
		{in: "draft", want: invoicing.InvoiceDraft},
		{in: "accumulating", want: invoicing.InvoiceAccumulating},
		{in: "unpaid", want: invoicing.InvoiceUnpaid, wantVisible: true},
		{in: "pending_payment", want: invoicing.InvoicePendingPayment, wantVisible: true},
		{in: "paid", want: invoicing.InvoicePaid, wantVisible: true},
		{in: "cancelled", want: invoicing.InvoiceCancelled, wantVisible: true},
		{in: "refunded", want: invoicing.InvoiceRefunded, wantVisible: true},
		{in: "collecting", want: invoicing.InvoiceCollecting, wantVisible: true},
		{in: "", wantErr: domaintest.Invalid("status")},
		{in: "Paid", wantErr: domaintest.Invalid("status")},
		{in: "paid ", wantErr: domaintest.Invalid("status")},
		{in: "deleted", wantErr: domaintest.Invalid("status")},
		{in: "canceled", wantErr: domaintest.Invalid("status")},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := invoicing.ParseInvoiceStatus(tt.in)
			domaintest.MatchErr(t, err, tt.wantErr)
			if got != tt.want {
				t.Fatalf("ParseInvoiceStatus(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if got.Visible() != tt.wantVisible {
				t.Fatalf("%q.Visible() = %v, want %v", got, got.Visible(), tt.wantVisible)
			}
		})
	}
}

func TestParseVisibleInvoiceStatus(t *testing.T) {
	tests := []struct {
		in      string
		want    invoicing.InvoiceStatus
		wantErr error
	}{
		{in: "unpaid", want: invoicing.InvoiceUnpaid},
		{in: "pending_payment", want: invoicing.InvoicePendingPayment},
		{in: "paid", want: invoicing.InvoicePaid},
		{in: "cancelled", want: invoicing.InvoiceCancelled},
		{in: "refunded", want: invoicing.InvoiceRefunded},
		{in: "collecting", want: invoicing.InvoiceCollecting},
		{in: "draft", wantErr: domaintest.Invalid("status")},
		{in: "accumulating", wantErr: domaintest.Invalid("status")},
		{in: "", wantErr: domaintest.Invalid("status")},
		{in: "UNPAID", wantErr: domaintest.Invalid("status")},
	}
	for _, tt := range tests {
		got, err := invoicing.ParseVisibleInvoiceStatus(tt.in)
		domaintest.MatchErr(t, err, tt.wantErr)
		if got != tt.want {
			t.Errorf("ParseVisibleInvoiceStatus(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if n := len(invoicing.VisibleInvoiceStatuses); n != 6 {
		t.Errorf("%d visible statuses, want 6", n)
	}
}

var (
	t0 = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	t1 = time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)
)

// validInvoice returns the parameters of a valid invoice with two lines:
// 62 × 25 = 1550 and 1.5 × 999 = 1498.5 → 1499.
func validInvoice(t *testing.T) invoicing.InvoiceParams {
	return invoicing.InvoiceParams{
		ID: "inv_1", OrganizationID: "org_1", Key: "INV-2026-000001", Status: invoicing.InvoiceUnpaid,
		Name: "October storage", Notes: "", DueDate: t1, Currency: "USD", CreatedAt: t0, UpdatedAt: t0,
		Items: []invoicing.InvoiceItemParams{
			{ID: "li_1", Title: "Pallet storage", Description: "2 pallets × 31 days", Quantity: domaintest.Milli(t, 62_000), UnitCost: 25},
			{ID: "li_2", Title: "Labour", Description: "1.5 hours", Quantity: domaintest.Milli(t, 1_500), UnitCost: 999},
		},
	}
}

func ptr[T any](v T) *T { return &v }

func TestNewInvoice(t *testing.T) {
	tests := []struct {
		name      string
		edit      func(p *invoicing.InvoiceParams)
		wantTotal int64
		wantLines []int64
		wantErr   error
	}{
		{name: "computes line totals and the total", edit: func(p *invoicing.InvoiceParams) {},
			wantTotal: 3_049, wantLines: []int64{1_550, 1_499}},
		{name: "agreeing totals are accepted", edit: func(p *invoicing.InvoiceParams) {
			p.Items[0].TotalCost, p.Items[1].TotalCost, p.TotalAmount = ptr[int64](1_550), ptr[int64](1_499), ptr[int64](3_049)
		}, wantTotal: 3_049, wantLines: []int64{1_550, 1_499}},
		{name: "no items totals zero", edit: func(p *invoicing.InvoiceParams) { p.Items = nil }, wantTotal: 0, wantLines: []int64{}},
		{name: "internal status is stored", edit: func(p *invoicing.InvoiceParams) { p.Status = invoicing.InvoiceDraft },
			wantTotal: 3_049, wantLines: []int64{1_550, 1_499}},
		{name: "line total that disagrees", edit: func(p *invoicing.InvoiceParams) { p.Items[1].TotalCost = ptr[int64](1_498) },
			wantErr: domaintest.Invalid("invoice.items[1].totalCost")},
		{name: "total that disagrees", edit: func(p *invoicing.InvoiceParams) { p.TotalAmount = ptr[int64](3_048) },
			wantErr: domaintest.Invalid("invoice.totalAmount")},
		{name: "line overflow", edit: func(p *invoicing.InvoiceParams) { p.Items[0].UnitCost = math.MaxInt64 },
			wantErr: domain.ErrOverflow},
		{name: "sum overflow", edit: func(p *invoicing.InvoiceParams) {
			p.Items[0].Quantity, p.Items[0].UnitCost = domaintest.Milli(t, 1_000), math.MaxInt64/2+1
			p.Items[1].Quantity, p.Items[1].UnitCost = domaintest.Milli(t, 1_000), math.MaxInt64/2+1
		}, wantErr: domain.ErrOverflow},
		{name: "negative cost", edit: func(p *invoicing.InvoiceParams) { p.Items[0].UnitCost = -1 }, wantErr: domaintest.Invalid("unitCost")},
		{name: "currency other than USD", edit: func(p *invoicing.InvoiceParams) { p.Currency = "EUR" },
			wantErr: domaintest.Invalid("invoice.currency")},
		{name: "unknown status", edit: func(p *invoicing.InvoiceParams) { p.Status = "overdue" }, wantErr: domaintest.Invalid("status")},
		{name: "invalid ID", edit: func(p *invoicing.InvoiceParams) { p.ID = "' OR 1=1" }, wantErr: domaintest.Invalid("invoice.id")},
		{name: "invalid organization", edit: func(p *invoicing.InvoiceParams) { p.OrganizationID = "" },
			wantErr: domaintest.Invalid("invoice.organizationId")},
		{name: "blank key", edit: func(p *invoicing.InvoiceParams) { p.Key = "  " }, wantErr: domaintest.Invalid("invoice.key")},
		{name: "missing due date", edit: func(p *invoicing.InvoiceParams) { p.DueDate = time.Time{} }, wantErr: domaintest.Invalid("invoice")},
		{name: "updated before created", edit: func(p *invoicing.InvoiceParams) { p.UpdatedAt = t0.Add(-time.Millisecond) },
			wantErr: domaintest.Invalid("invoice.updatedAt")},
		{name: "duplicate item ID", edit: func(p *invoicing.InvoiceParams) { p.Items[1].ID = "li_1" },
			wantErr: domaintest.Invalid("invoice.items[1].id")},
		{name: "invalid item ID", edit: func(p *invoicing.InvoiceParams) { p.Items[0].ID = "" },
			wantErr: domaintest.Invalid("invoice.items[0].id")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := validInvoice(t)
			tt.edit(&p)
			inv, err := invoicing.NewInvoice(p)
			domaintest.MatchErr(t, err, tt.wantErr)
			if err != nil {
				return
			}
			if inv.TotalAmount() != tt.wantTotal {
				t.Errorf("TotalAmount() = %d, want %d", inv.TotalAmount(), tt.wantTotal)
			}
			items := inv.Items()
			if len(items) != len(tt.wantLines) {
				t.Fatalf("%d items, want %d", len(items), len(tt.wantLines))
			}
			for i, it := range items {
				if it.TotalCost() != tt.wantLines[i] {
					t.Errorf("item %d TotalCost() = %d, want %d", i, it.TotalCost(), tt.wantLines[i])
				}
			}
			if inv.Currency() != invoicing.CurrencyUSD {
				t.Errorf("Currency() = %q", inv.Currency())
			}
		})
	}
}

func TestNewInvoiceKeepsFieldsInUTC(t *testing.T) {
	p := validInvoice(t)
	nyc := time.FixedZone("EST", -5*3600)
	p.CreatedAt, p.UpdatedAt, p.DueDate = t0.In(nyc), t1.In(nyc), t1.In(nyc)
	p.DeletedAt = ptr(t1.In(nyc))
	inv, err := invoicing.NewInvoice(p)
	if err != nil {
		t.Fatal(err)
	}
	for name, ts := range map[string]time.Time{"createdAt": inv.CreatedAt(), "updatedAt": inv.UpdatedAt(),
		"dueDate": inv.DueDate(), "deletedAt": *inv.DeletedAt()} {
		if ts.Location() != time.UTC {
			t.Errorf("%s in %v, want UTC", name, ts.Location())
		}
	}
	if !inv.CreatedAt().Equal(t0) {
		t.Errorf("CreatedAt() = %v, want %v", inv.CreatedAt(), t0)
	}
	if inv.ID() != "inv_1" || inv.OrganizationID() != "org_1" || inv.Key() != "INV-2026-000001" ||
		inv.Name() != "October storage" || inv.Status() != invoicing.InvoiceUnpaid {
		t.Errorf("fields not kept: %+v", inv)
	}
	it := inv.Items()[0]
	if it.ID() != "li_1" || it.Title() != "Pallet storage" || it.Description() != "2 pallets × 31 days" ||
		it.Quantity().String() != "62" || it.UnitCost() != 25 {
		t.Errorf("item fields not kept: %+v", it)
	}
}

func TestInvoiceItemsIsACopy(t *testing.T) {
	inv, err := invoicing.NewInvoice(validInvoice(t))
	if err != nil {
		t.Fatal(err)
	}
	items := inv.Items()
	items[0] = invoicing.InvoiceItem{}
	if inv.Items()[0].ID() != "li_1" {
		t.Fatal("changing the slice Items returned changed the invoice")
	}
}

func TestInvoiceVisible(t *testing.T) {
	tests := []struct {
		name    string
		status  invoicing.InvoiceStatus
		deleted *time.Time
		want    bool
	}{
		{name: "unpaid", status: invoicing.InvoiceUnpaid, want: true},
		{name: "collecting", status: invoicing.InvoiceCollecting, want: true},
		{name: "draft", status: invoicing.InvoiceDraft, want: false},
		{name: "accumulating", status: invoicing.InvoiceAccumulating, want: false},
		{name: "paid but deleted", status: invoicing.InvoicePaid, deleted: &t1, want: false},
	}
	for _, tt := range tests {
		p := validInvoice(t)
		p.Status, p.DeletedAt = tt.status, tt.deleted
		inv, err := invoicing.NewInvoice(p)
		if err != nil {
			t.Fatal(err)
		}
		if inv.Visible() != tt.want {
			t.Errorf("%s: Visible() = %v, want %v", tt.name, inv.Visible(), tt.want)
		}
	}
}

func TestRehydrateInvoiceKeepsStoredTotals(t *testing.T) {
	p := validInvoice(t)
	p.Items[0].TotalCost, p.Items[1].TotalCost = ptr[int64](1_550), ptr[int64](1_499)
	inv := invoicing.RehydrateInvoice(p, 3_049)
	if inv.TotalAmount() != 3_049 || inv.Items()[1].TotalCost() != 1_499 || len(inv.Items()) != 2 {
		t.Fatalf("rehydrated %d / %+v", inv.TotalAmount(), inv.Items())
	}
}
