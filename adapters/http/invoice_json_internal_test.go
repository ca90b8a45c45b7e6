package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/domain"
)

// oddTexts need every escape encoding/json makes, and none more.
var oddTexts = []string{
	"", "Pallet storage", `quote " backslash \ slash /`, "<b>&amp;</b> 'single'", "tab\tnewline\nreturn\rback\bfeed\f",
	"\x00\x01\x1f\x7f", "Zoë — Øresund ×12 東京 😀", "line\u2028para\u2029", "bad \xff\xfe utf-8 \xe2\x82", "\ufffd", "a\u0085b\u00a0c",
}

func testInvoice(t testing.TB, i int) *domain.Invoice {
	t.Helper()
	at := time.Date(2026, 11, 22, 1, 15, 5, 123_456_789, time.FixedZone("x", 3600)).Add(time.Duration(i) * time.Hour)
	p := domain.InvoiceParams{
		ID: fmt.Sprintf("inv_%d", i), OrganizationID: "org", Key: "K", Status: domain.VisibleInvoiceStatuses[i%6],
		Name: oddTexts[i%len(oddTexts)], Notes: oddTexts[(i+3)%len(oddTexts)], DueDate: at.AddDate(0, 0, 30), Currency: "USD",
		CreatedAt: at, UpdatedAt: at.Add(time.Minute),
	}
	if i%5 == 4 {
		d := at.Add(time.Hour)
		p.DeletedAt = &d
	}
	for j, q := range []string{"62", "1.5", "0.005", "1000000000", "0"}[:i%6%5] {
		quantity, err := domain.ParseQuantity(q)
		if err != nil {
			t.Fatal(err)
		}
		total := int64(j * 1_000_000_007)
		p.Items = append(p.Items, domain.InvoiceItemParams{ID: fmt.Sprintf("li_%d_%d", i, j), Title: oddTexts[(i+j)%len(oddTexts)],
			Description: oddTexts[(i+2*j+1)%len(oddTexts)], Quantity: quantity, UnitCost: int64(j) * 9_223_372_036, TotalCost: &total})
	}
	return domain.RehydrateInvoice(p, int64(i)*9_223_372_036_854)
}

func TestInvoiceJSONAsEncodingJSON(t *testing.T) {
	var invs []*domain.Invoice
	for i := range 40 {
		invs = append(invs, testInvoice(t, i))
	}
	for _, page := range [][]*domain.Invoice{nil, invs[:1], invs[:10], invs} {
		want := httptest.NewRecorder()
		dtos := make([]InvoiceDTO, len(page))
		for i, inv := range page {
			dtos[i] = invoiceDTO(inv)
		}
		WriteJSON(want, 200, dtos)
		got := httptest.NewRecorder()
		writeInvoicesJSON(got, page)
		if !bytes.Equal(got.Body.Bytes(), want.Body.Bytes()) || got.Code != want.Code ||
			got.Header().Get("Content-Type") != want.Header().Get("Content-Type") {
			t.Fatalf("page of %d:\ngot  %d %q %s\nwant %d %q %s", len(page), got.Code, got.Header().Get("Content-Type"), got.Body,
				want.Code, want.Header().Get("Content-Type"), want.Body)
		}
	}
	for _, inv := range invs {
		want, got := httptest.NewRecorder(), httptest.NewRecorder()
		WriteJSON(want, 200, invoiceDTO(inv))
		writeInvoiceJSON(got, inv)
		if !bytes.Equal(got.Body.Bytes(), want.Body.Bytes()) {
			t.Fatalf("invoice %s:\ngot  %s\nwant %s", inv.ID(), got.Body, want.Body)
		}
	}
}

func FuzzJSONStringAsEncodingJSON(f *testing.F) {
	for _, s := range oddTexts {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var want bytes.Buffer
		if err := json.NewEncoder(&want).Encode(s); err != nil {
			t.Fatal(err)
		}
		if got := append(appendJSONString(nil, s), '\n'); !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("%q: got %s, want %s", s, got, want.Bytes())
		}
	})
}

// BenchmarkInvoicePageJSON writes a page of ten invoices of three items
// both ways: go test -bench InvoicePageJSON -benchmem ./adapters/http/
func BenchmarkInvoicePageJSON(b *testing.B) {
	page := make([]*domain.Invoice, 10)
	for i := range page {
		at := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Hour)
		p := domain.InvoiceParams{ID: fmt.Sprintf("inv_bench_%07d", i), Status: domain.InvoicePaid, Name: "Fulfillment fees — week 44, 2026",
			Notes: "Payment by ACH; remittance to billing@acme3pl.example.", DueDate: at.AddDate(0, 0, 30), Currency: "USD", CreatedAt: at, UpdatedAt: at}
		for j, d := range []string{"312 orders, e.g. order #4821337 to Reno, NV", "SKU TEE-BLK-M ×12", "Tracking 1ZX50TBYC1HFUJH3XP to Dallas, TX"} {
			q, _ := domain.ParseQuantity([]string{"312", "12", "1.5"}[j])
			total := int64(70200)
			p.Items = append(p.Items, domain.InvoiceItemParams{ID: fmt.Sprintf("li_bench_%07d_%d", i, j), Title: "Pick & pack — first item",
				Description: d, Quantity: q, UnitCost: 225, TotalCost: &total})
		}
		page[i] = domain.RehydrateInvoice(p, 210600)
	}
	b.Run("encoding/json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			dtos := make([]InvoiceDTO, len(page))
			for i, inv := range page {
				dtos[i] = invoiceDTO(inv)
			}
			WriteJSON(discard{}, 200, dtos)
		}
	})
	b.Run("appended", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			writeInvoicesJSON(discard{}, page)
		}
	})
}

// discard is a ResponseWriter that keeps nothing.
type discard struct{}

var discardHeader = http.Header{}

func (discard) Header() http.Header         { return discardHeader }
func (discard) Write(b []byte) (int, error) { return len(b), nil }
func (discard) WriteHeader(int)             {}

// FormatTime and appendJSONTime, written digit by digit, write what
// AppendFormat writes with the layout: every year the layout has four
// digits for, each field at its bounds, zones and monotonic readings
// stripped, and the years they fall back for.
func TestTimesAreTheLayout(t *testing.T) {
	times := []time.Time{
		{}, time.Unix(0, 0), time.Date(9999, 12, 31, 23, 59, 59, 999_999_999, time.UTC), time.Now(),
		time.Date(2026, 3, 29, 1, 30, 0, 1_000_000, time.FixedZone("+14", 14*3600)),
		time.Date(1, 1, 1, 0, 0, 0, 0, time.FixedZone("-12", -12*3600)),
		time.Date(-1, 6, 1, 0, 0, 0, 0, time.UTC), time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
	}
	for i := range 20000 {
		// Spread over years 0 to 9999, down to the nanosecond.
		times = append(times, time.Unix(-62_167_219_200+int64(i)*15_778_463, int64(i)*48_271%1_000_000_000))
	}
	for _, at := range times {
		want := at.UTC().Format(timeLayout)
		if got := FormatTime(at); got != want {
			t.Fatalf("FormatTime(%v) = %s, want %s", at, got, want)
		}
		if got := string(appendJSONTime(nil, at)); got != `"`+want+`"` {
			t.Fatalf("appendJSONTime(%v) = %s, want %q", at, got, want)
		}
	}
}
