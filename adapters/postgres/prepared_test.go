package postgres_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/uptrace/bun"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/acme3pl/fulfillment/adapters/postgres"
	pgfixture "github.com/acme3pl/fulfillment/adapters/postgres/fixture"
	pgintake "github.com/acme3pl/fulfillment/adapters/postgres/intake"
	"github.com/acme3pl/fulfillment/adapters/postgres/pgtest"
	"github.com/acme3pl/fulfillment/domain/intake"
	"github.com/acme3pl/fulfillment/domain/shipping"
	fixtureports "github.com/acme3pl/fulfillment/ports/fixture"
	intakeports "github.com/acme3pl/fulfillment/ports/intake"
)

// oddSKUs need every escape of an array literal: double and single quotes,
// backslashes, commas, braces, white space inside, the word NULL, unicode.
var oddSKUs = []string{`Q"1`, `O'1`, `B\2`, `C,3`, `{D}`, `E F`, `NULL`, `Ü-😀`}

func seedOddSKUs(t *testing.T, db *bun.DB, org string) {
	t.Helper()
	intakeSeed(t, org, 0)
	var f fixtureports.Fixture
	for i, sku := range oddSKUs {
		f.Inventory = append(f.Inventory, shipping.InventoryItem{
			ID: fmt.Sprintf("%s_odd%d", org, i), OrganizationID: org, Kind: shipping.KindProduct, SKU: sku, Name: "odd"})
	}
	err := postgres.NewUnitOfWork(db, pgfixture.Repositories).Do(context.Background(), func(ctx context.Context, r fixtureports.Repositories) error {
		_, err := r.Fixtures.Load(ctx, f)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestTextArrays(t *testing.T) {
	ss, ns := postgres.TextArrays([]string{`a"b`, `c\d`, ``, `NULL`, `it's`}, []int64{1, -2, 9223372036854775807})
	if want := `{"a\"b","c\\d","","NULL","it's"}`; ss != want {
		t.Errorf("text array %s, want %s", ss, want)
	}
	if want := `{1,-2,9223372036854775807}`; ns != want {
		t.Errorf("int array %s, want %s", ns, want)
	}
}

// TestHotQueriesPreparedAndUnprepared runs the intake's claim, with its
// reads, both ways — on the pool, formatted by the driver, and in a unit of
// work, as a server-side prepared statement — with SKUs that need escaping.
func TestHotQueriesPreparedAndUnprepared(t *testing.T) {
	db := pgtest.Open(t, testDSN)
	org := intakeOrgID(t)
	seedOddSKUs(t, db, org)
	ctx := context.Background()
	skus := append([]string{"absent"}, oddSKUs...)

	delivery := func(order int64) intake.OrderDelivery {
		return intake.OrderDelivery{OrganizationID: org, OrderID: order, TraceID: "t", ReceivedAt: time.Now()}
	}
	_, got, err := postgres.NewRepositories(db, pgintake.Repositories).Receipts.Claim(ctx, delivery(900), skus)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Products) != len(oddSKUs) || got.Warehouse == nil {
		t.Fatalf("unprepared: found %d of %d SKUs and warehouse %v: %v", len(got.Products), len(oddSKUs), got.Warehouse, got.Products)
	}
	for _, sku := range oddSKUs {
		if it := got.Products[sku]; it.SKU != sku || it.OrganizationID != org || it.Kind != shipping.KindProduct {
			t.Errorf("SKU %q: %+v", sku, it)
		}
	}
	// On a pool of one connection of its own, the first unit of work runs
	// the read unprepared, the next ones prepared once and reused.
	one, err := postgres.Open(postgres.Options{DSN: testDSN, MaxOpenConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = one.Close() }()
	uow := postgres.NewUnitOfWork(one, pgintake.Repositories)
	_, claimText := postgres.Describe(pgintake.Statements()["claimOrderSQL"])
	var counts []int
	for i := range 3 {
		n, err := postgres.PreparedOnConnection(ctx, uow, claimText, func(ctx context.Context, r intakeports.Repositories) error {
			_, _, err := r.Receipts.Claim(ctx, delivery(int64(901+i)), skus)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		counts = append(counts, n)
	}
	if counts[0] != 0 || counts[1] != 1 || counts[2] != 1 {
		t.Fatalf("prepared intake reads on the connection after each transaction: %v, want 0, 1, 1", counts)
	}
}

// TestIntakeQuerySpans checks the house rule on every statement of an
// intake, those run by bun (BEGIN, COMMIT: the pool's hook) and the
// prepared ones, which bypass bun (runner.span): one span per statement
// below the use case span, named by the operation, with the same
// attributes, the statement's text and no argument values.
func TestIntakeQuerySpans(t *testing.T) {
	db := pgtest.Open(t, testDSN)
	org := intakeOrgID(t)
	seedOddSKUs(t, db, org)
	app, recorder, _ := intakeTraced(db)
	for round := range 2 { // the first prepares, the second reuses
		recorder.Reset()
		res, err := intakeReceive(app, org, intakeOrderOf(int64(700+round), oddSKUs...))
		if err != nil || res.ShipmentID == "" {
			t.Fatalf("round %d: %+v, %v", round, res, err)
		}
		var useCase sdktrace.ReadOnlySpan
		for _, s := range recorder.Ended() {
			if s.Name() == "ReceiveStorefrontOrder" {
				useCase = s
			}
		}
		if useCase == nil {
			t.Fatal("no use case span")
		}
		var ops []string
		for _, s := range recorder.Ended() {
			if s.Parent().SpanID() != useCase.SpanContext().SpanID() {
				continue
			}
			ops = append(ops, s.Name())
			checkStatementSpan(t, s, org, `Q"1`)
			if s.Name() != "BEGIN" && s.Name() != "COMMIT" && !strings.Contains(attr(s, "db.query.text"), "$1") {
				t.Errorf("span %q has no db.query.text with placeholders: %v", s.Name(), s.Attributes())
			}
		}
		// claim with its SKUs and warehouse; reservation, shipment and items, and success.
		if want := "BEGIN SELECT UPDATE COMMIT"; strings.Join(ops, " ") != want {
			t.Errorf("round %d: query spans %v, want %s", round, ops, want)
		}
	}
}
