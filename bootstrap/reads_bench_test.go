package bootstrap_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/adapters/identity"
)

// BenchmarkInvoiceReads serves the invoice list's first page and invoice
// details through the real handler of the real graph against PostgreSQL, in
// parallel, with the access log on as `serve` has it: where the service's
// CPU goes on the reads of bench/reads, without the network in between.
//
//	go test -run '^$' -bench InvoiceReads -benchtime 10s -cpuprofile cpu.out ./bootstrap/
//	go tool pprof -top cpu.out
func BenchmarkInvoiceReads(b *testing.B) {
	const invoices = 200
	seedReadsBench(b, invoices)
	// The rate limits far above the load, as bench/reads sets them: every
	// request is allowed.
	handler := benchHandler(b, "LOG_LEVEL", "info", "RATE_LIMIT", "1000000/s", "RATE_LIMIT_BURST", "1000000")
	token, err := identity.MintToken(identity.TokenConfig{SigningKey: []byte(signingKey)},
		identity.MintParams{Organization: "org_reads", Scopes: []string{"invoices"}, TTL: time.Hour})
	if err != nil {
		b.Fatal(err)
	}
	for _, bench := range []struct {
		name string
		path func(i int) string
	}{
		{"list", func(int) string { return "/v0/invoices" }},
		{"detail", func(i int) string { return fmt.Sprintf("/v0/invoices/inv_reads_%d", 1+i%invoices) }},
	} {
		b.Run(bench.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetParallelism(4) // 8 requests at once on 2 CPUs, as bench/reads's 8 clients
			b.RunParallel(func(pb *testing.PB) {
				for i := 0; pb.Next(); i++ {
					if !serveOK(b, handler, httptest.NewRequest(http.MethodGet, bench.path(i), nil), token) {
						return
					}
				}
			})
		})
	}
}

// seedReadsBench loads an organization with n invoices of three items each.
func seedReadsBench(b *testing.B, n int) {
	b.Helper()
	var doc strings.Builder
	doc.WriteString(`{"organizations": [{"id": "org_reads", "name": "Reads"}], "invoices": [`)
	for i := 1; i <= n; i++ {
		if i > 1 {
			doc.WriteByte(',')
		}
		day := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, i%300)
		fmt.Fprintf(&doc, `{"id": "inv_reads_%d", "organizationId": "org_reads", "key": "INV-%06d", "status": "unpaid",
			"name": "Storage and handling %d", "notes": "pallet storage, pick & pack", "dueDate": %q, "currency": "USD",
			"createdAt": %q, "updatedAt": %q, "items": [`, i, i, i, day.AddDate(0, 1, 0).Format(time.RFC3339),
			day.Format(time.RFC3339), day.Format(time.RFC3339))
		for j := 1; j <= 3; j++ {
			if j > 1 {
				doc.WriteByte(',')
			}
			fmt.Fprintf(&doc, `{"id": "item_reads_%d_%d", "title": "Pallet storage", "description": "per pallet per day",
				"quantity": "%d.5", "unitCost": %d}`, i, j, j, 100*j)
		}
		doc.WriteString(`]}`)
	}
	doc.WriteString(`]}`)
	loadBenchFixture(b, doc.String())
}
