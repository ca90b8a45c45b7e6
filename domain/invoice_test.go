package domain_test

import (
	"math"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/domain"
)

func TestParseInvoiceStatus(t *testing.T) {
	tests := []struct {
		in          string
		want        domain.InvoiceStatus
		wantErr     error
		wantVisible bool
	}{
		{in: "draft", want: domain.InvoiceDraft},
		{in: "accumulating", want: domain.InvoiceAccumulating},
		{in: "unpaid", want: domain.InvoiceUnpaid, wantVisible: true},
		{in: "pending_payment", want: domain.InvoicePendingPayment, wantVisible: true},
		{in: "paid", want: domain.InvoicePaid, wantVisible: true},
		{in: "cancelled", want: domain.InvoiceCancelled, wantVisible: true},
		{in: "refunded", want: domain.InvoiceRefunded, wantVisible: true},
		{in: "collecting", want: domain.InvoiceCollecting, wantVisible: true},
		{in: "", wantErr: invalid("status")},
		{in: "Paid", wantErr: invalid("status")},
		{in: "paid ", wantErr: invalid("status")},
		{in: "deleted", wantErr: invalid("status")},
		{in: "canceled", wantErr: invalid("status")},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := domain.ParseInvoiceStatus(tt.in)
			matchErr(t, err, tt.wantErr)
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
		want    domain.InvoiceStatus
		wantErr error
	}{
		{in: "unpaid", want: domain.InvoiceUnpaid},
		{in: "pending_payment", want: domain.InvoicePendingPayment},
		{in: "paid", want: domain.InvoicePaid},
		{in: "cancelled", want: domain.InvoiceCancelled},
		{in: "refunded", want: domain.InvoiceRefunded},
		{in: "collecting", want: domain.InvoiceCollecting},
		{in: "draft", wantErr: invalid("status")},
		{in: "accumulating", wantErr: invalid("status")},
		{in: "", wantErr: invalid("status")},
		{in: "UNPAID", wantErr: invalid("status")},
	}
	for _, tt := range tests {
		got, err := domain.ParseVisibleInvoiceStatus(tt.in)
		matchErr(t, err, tt.wantErr)
		if got != tt.want {
			t.Errorf("ParseVisibleInvoiceStatus(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if n := len(domain.VisibleInvoiceStatuses); n != 6 {
		t.Errorf("%d visible statuses, want 6", n)
	}
}

var (
	t0 = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	t1 = time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)
)

// validInvoice returns the parameters of a valid invoice with two lines:
// 62 × 25 = 1550 and 1.5 × 999 = 1498.5 → 1499.
func validInvoice(t *testing.T) domain.InvoiceParams {
	return domain.InvoiceParams{
		ID: "inv_1", OrganizationID: "org_1", Key: "INV-2026-000001", Status: domain.InvoiceUnpaid,
		Name: "October storage", Notes: "", DueDate: t1, Currency: "USD", CreatedAt: t0, UpdatedAt: t0,
		Items: []domain.InvoiceItemParams{
			{ID: "li_1", Title: "Pallet storage", Description: "2 pallets × 31 days", Quantity: milli(t, 62_000), UnitCost: 25},
			{ID: "li_2", Title: "Labour", Description: "1.5 hours", Quantity: milli(t, 1_500), UnitCost: 999},
		},
	}
}

func ptr[T any](v T) *T { return &v }

func TestNewInvoice(t *testing.T) {
	tests := []struct {
		name      string
		edit      func(p *domain.InvoiceParams)
		wantTotal int64
		wantLines []int64
		wantErr   error
	}{
		{name: "computes line totals and the total", edit: func(p *domain.InvoiceParams) {},
			wantTotal: 3_049, wantLines: []int64{1_550, 1_499}},
		{name: "agreeing totals are accepted", edit: func(p *domain.InvoiceParams) {
			p.Items[0].TotalCost, p.Items[1].TotalCost, p.TotalAmount = ptr[int64](1_550), ptr[int64](1_499), ptr[int64](3_049)
		}, wantTotal: 3_049, wantLines: []int64{1_550, 1_499}},
		{name: "no items totals zero", edit: func(p *domain.InvoiceParams) { p.Items = nil }, wantTotal: 0, wantLines: []int64{}},
		{name: "internal status is stored", edit: func(p *domain.InvoiceParams) { p.Status = domain.InvoiceDraft },
			wantTotal: 3_049, wantLines: []int64{1_550, 1_499}},
		{name: "line total that disagrees", edit: func(p *domain.InvoiceParams) { p.Items[1].TotalCost = ptr[int64](1_498) },
			wantErr: invalid("invoice.items[1].totalCost")},
		{name: "total that disagrees", edit: func(p *domain.InvoiceParams) { p.TotalAmount = ptr[int64](3_048) },
			wantErr: invalid("invoice.totalAmount")},
		{name: "line overflow", edit: func(p *domain.InvoiceParams) { p.Items[0].UnitCost = math.MaxInt64 },
			wantErr: domain.ErrOverflow},
		{name: "sum overflow", edit: func(p *domain.InvoiceParams) {
			p.Items[0].Quantity, p.Items[0].UnitCost = milli(t, 1_000), math.MaxInt64/2+1
			p.Items[1].Quantity, p.Items[1].UnitCost = milli(t, 1_000), math.MaxInt64/2+1
		}, wantErr: domain.ErrOverflow},
		{name: "negative cost", edit: func(p *domain.InvoiceParams) { p.Items[0].UnitCost = -1 }, wantErr: invalid("unitCost")},
		{name: "currency other than USD", edit: func(p *domain.InvoiceParams) { p.Currency = "EUR" },
			wantErr: invalid("invoice.currency")},
		{name: "unknown status", edit: func(p *domain.InvoiceParams) { p.Status = "overdue" }, wantErr: invalid("status")},
		{name: "invalid ID", edit: func(p *domain.InvoiceParams) { p.ID = "' OR 1=1" }, wantErr: invalid("invoice.id")},
		{name: "invalid organization", edit: func(p *domain.InvoiceParams) { p.OrganizationID = "" },
			wantErr: invalid("invoice.organizationId")},
		{name: "blank key", edit: func(p *domain.InvoiceParams) { p.Key = "  " }, wantErr: invalid("invoice.key")},
		{name: "missing due date", edit: func(p *domain.InvoiceParams) { p.DueDate = time.Time{} }, wantErr: invalid("invoice")},
		{name: "updated before created", edit: func(p *domain.InvoiceParams) { p.UpdatedAt = t0.Add(-time.Millisecond) },
			wantErr: invalid("invoice.updatedAt")},
		{name: "duplicate item ID", edit: func(p *domain.InvoiceParams) { p.Items[1].ID = "li_1" },
			wantErr: invalid("invoice.items[1].id")},
		{name: "invalid item ID", edit: func(p *domain.InvoiceParams) { p.Items[0].ID = "" },
			wantErr: invalid("invoice.items[0].id")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := validInvoice(t)
			tt.edit(&p)
			inv, err := domain.NewInvoice(p)
			matchErr(t, err, tt.wantErr)
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
			if inv.Currency() != domain.CurrencyUSD {
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
	inv, err := domain.NewInvoice(p)
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
		inv.Name() != "October storage" || inv.Status() != domain.InvoiceUnpaid {
		t.Errorf("fields not kept: %+v", inv)
	}
	it := inv.Items()[0]
	if it.ID() != "li_1" || it.Title() != "Pallet storage" || it.Description() != "2 pallets × 31 days" ||
		it.Quantity().String() != "62" || it.UnitCost() != 25 {
		t.Errorf("item fields not kept: %+v", it)
	}
}

func TestInvoiceItemsIsACopy(t *testing.T) {
	inv, err := domain.NewInvoice(validInvoice(t))
	if err != nil {
		t.Fatal(err)
	}
	items := inv.Items()
	items[0] = domain.InvoiceItem{}
	if inv.Items()[0].ID() != "li_1" {
		t.Fatal("changing the slice Items returned changed the invoice")
	}
}

func TestInvoiceVisible(t *testing.T) {
	tests := []struct {
		name    string
		status  domain.InvoiceStatus
		deleted *time.Time
		want    bool
	}{
		{name: "unpaid", status: domain.InvoiceUnpaid, want: true},
		{name: "collecting", status: domain.InvoiceCollecting, want: true},
		{name: "draft", status: domain.InvoiceDraft, want: false},
		{name: "accumulating", status: domain.InvoiceAccumulating, want: false},
		{name: "paid but deleted", status: domain.InvoicePaid, deleted: &t1, want: false},
	}
	for _, tt := range tests {
		p := validInvoice(t)
		p.Status, p.DeletedAt = tt.status, tt.deleted
		inv, err := domain.NewInvoice(p)
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
	inv := domain.RehydrateInvoice(p, 3_049)
	if inv.TotalAmount() != 3_049 || inv.Items()[1].TotalCost() != 1_499 || len(inv.Items()) != 2 {
		t.Fatalf("rehydrated %d / %+v", inv.TotalAmount(), inv.Items())
	}
}
