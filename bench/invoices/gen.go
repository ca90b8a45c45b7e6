package main

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/uptrace/bun"

	"github.com/acme3pl/fulfillment/adapters/postgres"
	pgfixture "github.com/acme3pl/fulfillment/adapters/postgres/fixture"
	"github.com/acme3pl/fulfillment/bench/internal/benchdb"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/invoicing"
)

// defaultDSN is the benchmark's own database; gen creates it.
const defaultDSN = "postgres://postgres@127.0.0.1:5432/fulfillment_bench?sslmode=disable"

// databaseFlags are the flags of a subcommand on the benchmark's database:
// -dsn, the database ($BENCH_DATABASE_URL, else defaultDSN), and -org, the
// organization measured, with the usages given.
func databaseFlags(name, dsnUsage, orgUsage string) (fs *flag.FlagSet, dsn, org *string) {
	fs = flag.NewFlagSet(name, flag.ExitOnError)
	def := defaultDSN
	if v := os.Getenv("BENCH_DATABASE_URL"); v != "" {
		def = v
	}
	return fs, fs.String("dsn", def, dsnUsage), fs.String("org", "org_bench", orgUsage)
}

func gen(ctx context.Context, args []string) error {
	fs, dsn, org := databaseFlags("gen", "database to fill (created and migrated when missing)",
		"organization to fill (created when missing)")
	n := fs.Int("n", 10_000, "invoices the organization should hold (existing ones count)")
	seed := fs.Uint64("seed", 1, "random seed: the same seed makes the same invoices")
	workers := fs.Int("workers", 2, "concurrent insert transactions")
	batch := fs.Int("batch", 1000, "invoices per transaction")
	_ = fs.Parse(args)
	if !domain.ValidID(*org) {
		return fmt.Errorf("-org %q is not a valid ID", *org)
	}
	if err := benchdb.CreateDatabase(ctx, *dsn); err != nil {
		return err
	}
	// VACUUM of a million rows takes longer than the driver's default
	// read timeout of 10 s.
	db, err := postgres.Open(postgres.Options{DSN: benchdb.WithParam(*dsn, "read_timeout", "1h"), MaxOpenConns: *workers + 1})
	if err != nil {
		return err
	}
	defer func() { _ = db.Close() }()
	if err := benchdb.Migrate(ctx, db); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	if _, err := db.NewRaw("INSERT INTO organizations (id, name) VALUES (?, ?) ON CONFLICT (id) DO NOTHING",
		*org, "Benchmark "+*org).Exec(ctx); err != nil {
		return fmt.Errorf("create organization: %w", err)
	}
	var have int
	if err := db.NewRaw("SELECT count(*) FROM invoices WHERE organization_id = ?", *org).Scan(ctx, &have); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "gen: %s holds %d invoices; making %d more\n", *org, have, max(*n-have, 0))
	if have >= *n {
		return nil
	}

	start := time.Now()
	g := newGenerator(*org, *seed, *n)
	batches := make(chan [2]int)
	errs := make(chan error, *workers)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for range *workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range batches {
				invs := make([]*invoicing.Invoice, 0, b[1]-b[0])
				for seq := b[0]; seq < b[1]; seq++ {
					inv, err := g.invoice(seq)
					if err != nil {
						errs <- err
						return
					}
					invs = append(invs, inv)
				}
				err := db.RunInTx(ctx, &sql.TxOptions{}, func(ctx context.Context, tx bun.Tx) error {
					_, err := pgfixture.SaveInvoices(ctx, tx, invs)
					return err
				})
				if err != nil {
					errs <- err
					return
				}
				mu.Lock()
				done += len(invs)
				if done%50_000 < len(invs) {
					el := time.Since(start)
					fmt.Fprintf(os.Stderr, "gen: %d invoices in %s (%.0f/s)\n", done, el.Round(time.Second), float64(done)/el.Seconds())
				}
				mu.Unlock()
			}
		}()
	}
	func() {
		defer close(batches)
		// Invoices are numbered 0..n-1; those that exist are skipped by
		// SaveInvoices, so a run that was stopped can be resumed.
		for lo := 0; lo < *n; lo += *batch {
			select {
			case batches <- [2]int{lo, min(lo+*batch, *n)}:
			case err := <-errs:
				errs <- err
				return
			case <-ctx.Done():
				return
			}
		}
	}()
	wg.Wait()
	close(errs)
	if err := errors.Join(ctx.Err(), <-errs); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "gen: inserted in %s; vacuum analyze\n", time.Since(start).Round(time.Second))
	// VACUUM sets the visibility map (index-only scans) and ANALYZE the
	// statistics the planner needs to choose between the indexes.
	if _, err := db.ExecContext(ctx, "VACUUM (ANALYZE) invoices, invoice_items"); err != nil {
		return fmt.Errorf("vacuum analyze: %w", err)
	}
	fmt.Fprintf(os.Stderr, "gen: done in %s\n", time.Since(start).Round(time.Second))
	return nil
}

// generator makes the invoices of one organization: invoice seq is the
// same for the same seed whatever order the workers ask for it in.
type generator struct {
	org, tag string
	seed     uint64
	n        int
	first    time.Time
	span     time.Duration
}

func newGenerator(org string, seed uint64, n int) *generator {
	tag := strings.TrimPrefix(org, "org_")
	if len(tag) > 24 {
		tag = tag[:24]
	}
	first := time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC)
	return &generator{org: org, tag: tag, seed: seed, n: max(n, 1), first: first,
		span: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC).Sub(first)}
}

// The text of a third-party logistics bill. Words are drawn with skewed
// weights (a few very common, a long tail of rare ones); benchmark terms:
// "storage" is common (about a third of invoices), "anchorage" rare (about
// one invoice in a thousand), "xylophone" never occurs.
var (
	months   = []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
	cities   = []string{"Newark, NJ", "Reno, NV", "Dallas, TX", "Chicago, IL", "Atlanta, GA", "Portland, OR", "Denver, CO", "Phoenix, AZ", "Seattle, WA", "Boston, MA", "Miami, FL", "Austin, TX", "Columbus, OH", "Nashville, TN", "Raleigh, NC", "Salt Lake City, UT", "Kansas City, MO", "Omaha, NE", "Boise, ID", "Tucson, AZ", "Memphis, TN", "Louisville, KY", "Richmond, VA", "Madison, WI", "Des Moines, IA", "Spokane, WA", "Fargo, ND", "Billings, MT", "Burlington, VT", "Juneau, AK"}
	carriers = []string{"UPS Ground", "FedEx Home Delivery", "USPS Priority Mail", "UPS 2nd Day Air", "FedEx Express Saver", "DHL eCommerce", "USPS Ground Advantage", "OnTrac Ground"}
	products = []string{"TEE", "HOOD", "CAP", "SOCK", "MUG", "BTL", "BAG", "KEY", "PIN", "CARD", "CANDLE", "SOAP", "TOWEL", "APRON", "SCARF", "GLOVE", "BELT", "WALLET", "JOURNAL", "POSTER"}
	colours  = []string{"BLK", "WHT", "NVY", "GRY", "RED", "GRN", "OLV", "SND", "TEAL", "PNK", "YLW", "BRN"}
	sizes    = []string{"XS", "S", "M", "L", "XL", "2XL"}
	people   = []string{"Maria Garcia", "James Smith", "Wei Chen", "Aisha Khan", "Olga Petrova", "Kenji Sato", "Fatima Ali", "Liam O'Brien", "Sofia Rossi", "Noah Müller", "Zoë Dubois", "Mateo López", "Ava Johnson", "Ethan Brown", "Priya Patel"}
	sites    = []string{"East Coast DC", "West Coast DC", "Dallas Crossdock", "Midwest Hub"}
	notes    = []string{
		"Net 30.", "Net 15. Late fees apply after the due date.", "Includes peak season surcharge.",
		"Payment by ACH; remittance to billing@acme3pl.example.", "Disputed line credited on the next invoice.",
		"Thank you for your business!", "Rates per the 2026 service agreement, schedule B.",
		"Storage billed on the highest daily pallet count.", "Customer PO attached; questions to your account manager.",
	}
)

// zipf picks an index of n with weight 1/(i+1).
func zipf(r *rand.Rand, n int) int {
	var total float64
	for i := range n {
		total += 1 / float64(i+1)
	}
	x := r.Float64() * total
	for i := range n {
		x -= 1 / float64(i+1)
		if x <= 0 {
			return i
		}
	}
	return n - 1
}

func pick(r *rand.Rand, s []string) string { return s[zipf(r, len(s))] }

func sku(r *rand.Rand) string {
	return pick(r, products) + "-" + pick(r, colours) + "-" + sizes[r.IntN(len(sizes))]
}

func tracking(r *rand.Rand) string {
	const alnum = "0123456789ABCDEFGHJKLMNPRSTUVWXYZ"
	b := []byte("1Z")
	for range 16 {
		b = append(b, alnum[r.IntN(len(alnum))])
	}
	return string(b)
}

type line struct {
	title, desc string
	milli       int64
	cost        int64
}

// lineFor makes one invoice line of a kind.
func lineFor(r *rand.Rand, kind int, city func() string) line {
	switch kind {
	case 0:
		pallets, days := 1+r.IntN(40), 28+r.IntN(4)
		return line{"Pallet storage", fmt.Sprintf("%d pallets × %d days at %s", pallets, days, sites[zipf(r, len(sites))]), int64(pallets * days * 1000), 25 + int64(r.IntN(20))}
	case 1:
		bins := 1 + r.IntN(200)
		return line{"Bin storage", fmt.Sprintf("%d bins, monthly rate", bins), int64(bins * 1000), 150 + int64(r.IntN(100))}
	case 2:
		n := 1 + r.IntN(400)
		return line{"Pick & pack — first item", fmt.Sprintf("%d orders, e.g. order #%d to %s", n, 1_000_000+r.IntN(9_000_000), city()), int64(n * 1000), 225}
	case 3:
		n := 1 + r.IntN(50)
		return line{"Additional item pick", fmt.Sprintf("SKU %s ×%d", sku(r), n), int64(n * 1000), 45}
	case 4:
		return line{"Shipping label — " + carriers[zipf(r, len(carriers))], fmt.Sprintf("Tracking %s to %s", tracking(r), city()), 1000, 650 + int64(r.IntN(2500))}
	case 5:
		n := 1 + r.IntN(80)
		return line{"Receiving — per carton", fmt.Sprintf("%d cartons, ASN-%06d", n, r.IntN(1_000_000)), int64(n * 1000), 300}
	case 6:
		return line{"Returns processing", fmt.Sprintf("RMA %d from %s, %s", 50_000+r.IntN(900_000), people[zipf(r, len(people))], city()), 1000, 350}
	case 7:
		n := 1 + r.IntN(500)
		return line{"Kitting", fmt.Sprintf("%d kits of %s + %s", n, sku(r), sku(r)), int64(n * 1000), 80}
	case 8:
		q := int64(250 * (1 + r.IntN(40))) // quarter hours
		return line{"Labour", fmt.Sprintf("%s hours — %s", domainQuantity(q), []string{"cycle count", "relabelling", "inventory audit", "special project"}[r.IntN(4)]), q, 3_500}
	default:
		n := 1 + r.IntN(300)
		return line{"Packaging materials", fmt.Sprintf("%d × %s boxes", n, []string{"10x8x4", "12x12x6", "16x12x8", "poly mailer"}[r.IntN(4)]), int64(n * 1000), 60 + int64(r.IntN(90))}
	}
}

func domainQuantity(milli int64) string {
	q, _ := domain.QuantityFromMilli(milli)
	return q.String()
}

var statusWeights = []struct {
	status invoicing.InvoiceStatus
	weight int
}{
	{invoicing.InvoicePaid, 700}, {invoicing.InvoiceUnpaid, 100}, {invoicing.InvoiceDraft, 50}, {invoicing.InvoiceAccumulating, 30},
	{invoicing.InvoicePendingPayment, 40}, {invoicing.InvoiceCancelled, 30}, {invoicing.InvoiceRefunded, 20}, {invoicing.InvoiceCollecting, 30},
}

// invoice makes invoice number seq of the organization.
func (g *generator) invoice(seq int) (*invoicing.Invoice, error) {
	r := rand.New(rand.NewPCG(g.seed, uint64(seq))) //nolint:gosec // test data: the same seed must make the same invoices
	created := g.first.Add(time.Duration(float64(g.span) * float64(seq) / float64(g.n))).
		Add(time.Duration(r.IntN(3_600_000)) * time.Millisecond).Truncate(time.Millisecond)
	month := months[created.Month()-1]
	city := func() string {
		if r.IntN(1000) == 0 {
			return "Anchorage, AK"
		}
		return pick(r, cities)
	}
	var name string
	var kinds []int
	switch kind := r.IntN(10); {
	case kind < 3: // monthly storage, billed in a batch at the start of the month
		created = time.Date(created.Year(), created.Month(), 1, 0, 0, 0, 0, time.UTC)
		name = fmt.Sprintf("%s %d storage", month, created.Year())
		kinds = []int{0, 1}
	case kind < 7:
		_, week := created.ISOWeek()
		name = fmt.Sprintf("Fulfillment fees — week %d, %d", week, created.Year())
		kinds = []int{2, 3, 4, 9}
	case kind < 8:
		name = fmt.Sprintf("Inbound receiving — PO %05d", r.IntN(100_000))
		kinds = []int{5, 8}
	case kind < 9:
		name = fmt.Sprintf("Returns — %s %d", month, created.Year())
		kinds = []int{6, 4}
	default:
		name = fmt.Sprintf("Kitting project %s-%03d", []string{"HOLIDAY", "BFCM", "SPRING", "LAUNCH"}[r.IntN(4)], r.IntN(1000))
		kinds = []int{7, 8, 9}
	}
	p := invoicing.InvoiceParams{
		ID:             fmt.Sprintf("inv_%s_%07d", g.tag, seq),
		OrganizationID: g.org,
		Key:            fmt.Sprintf("INV-%d-%07d", created.Year(), seq),
		Name:           name,
		Currency:       invoicing.CurrencyUSD,
		CreatedAt:      created,
		UpdatedAt:      created.Add(time.Duration(r.IntN(60*24)) * time.Hour),
		DueDate:        time.Date(created.Year(), created.Month(), created.Day()+30, 0, 0, 0, 0, time.UTC),
	}
	if r.IntN(2) == 0 {
		p.Notes = notes[zipf(r, len(notes))]
	}
	w := r.IntN(1000)
	for _, sw := range statusWeights {
		if w -= sw.weight; w < 0 {
			p.Status = sw.status
			break
		}
	}
	if r.IntN(100) < 3 {
		d := p.UpdatedAt
		p.DeletedAt = &d
	}
	for i := range 1 + r.IntN(5) {
		l := lineFor(r, kinds[zipf(r, len(kinds))], city)
		q, err := domain.QuantityFromMilli(l.milli)
		if err != nil {
			return nil, err
		}
		p.Items = append(p.Items, invoicing.InvoiceItemParams{
			ID: fmt.Sprintf("li_%s_%07d_%d", g.tag, seq, i), Title: l.title, Description: l.desc, Quantity: q, UnitCost: l.cost,
		})
	}
	return invoicing.NewInvoice(p)
}
