// Package pagetests holds the handler tests of the console's pages and
// actions: each against a real PostgreSQL database, through the real use
// cases built as bootstrap builds them (the command graph), behind a test
// guard that signs in a principal of the role a request names.
package pagetests

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/fx"

	"github.com/acme3pl/fulfillment/adapters/console"
	"github.com/acme3pl/fulfillment/adapters/fixture"
	"github.com/acme3pl/fulfillment/adapters/postgres/pgtest"
	"github.com/acme3pl/fulfillment/application"
	billingapp "github.com/acme3pl/fulfillment/application/billing"
	intakeapp "github.com/acme3pl/fulfillment/application/intake"
	invoicingapp "github.com/acme3pl/fulfillment/application/invoicing"
	shippingapp "github.com/acme3pl/fulfillment/application/shipping"
	"github.com/acme3pl/fulfillment/bootstrap"
	"github.com/acme3pl/fulfillment/domain/audit"
	"github.com/acme3pl/fulfillment/domain/intake"
	"github.com/acme3pl/fulfillment/domain/operator"
	"github.com/acme3pl/fulfillment/ports"
	auditports "github.com/acme3pl/fulfillment/ports/audit"
)

var testDSN string

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m, &testDSN)) }

// roleHeader names the role the test guard signs a request in with.
const roleHeader = "X-Test-Role"

// testGuard stands for the console's guard: it signs in a principal whose
// role the request's X-Test-Role names (none: 303 to /login, as without a
// session), and refuses with 403 what that role does not include, before
// the handler runs.
type testGuard struct{}

func (testGuard) wrap(need operator.Role, h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := r.Header.Get(roleHeader)
		if name == "" {
			http.Redirect(w, r, "/login", http.StatusSeeOther)
			return
		}
		role, _ := operator.ParseRole(name)
		if !role.Includes(need) {
			http.Error(w, "forbidden", http.StatusForbidden)
			return
		}
		p := operator.Principal{Subject: "clerk-" + name, Email: name + "@3pl.example", Role: role}
		h(w, r.WithContext(console.WithPrincipal(r.Context(), p)))
	})
}

func (g testGuard) Page(need operator.Role, h http.HandlerFunc) http.Handler { return g.wrap(need, h) }

func (g testGuard) Action(need operator.Role, _ audit.Action, h http.HandlerFunc) http.Handler {
	return g.wrap(need, h)
}

// world is the console over the real use cases on the test database.
type world struct {
	handler   http.Handler
	app       *application.UseCases
	intake    *intakeapp.UseCases
	billing   *billingapp.UseCases
	shipping  *shippingapp.UseCases
	invoicing *invoicingapp.UseCases
	clock     ports.Clock
}

type deps struct {
	fx.In
	App       *application.UseCases
	Intake    *intakeapp.UseCases
	Billing   *billingapp.UseCases
	Shipping  *shippingapp.UseCases
	Invoicing *invoicingapp.UseCases
	Clock     ports.Clock
	Routes    []console.Routes `group:"console-routes"`
}

var seedOnce sync.Once

// newWorld builds the command graph with the console's page groups (as
// bootstrap wires them), seeds the fixture once, and serves the console's
// handler behind the test guard.
func newWorld(t *testing.T) *world {
	t.Helper()
	cfg, err := bootstrap.Load(map[string]string{"DATABASE_URL": testDSN, "OTEL_TRACES_EXPORTER": "none"})
	if err != nil {
		t.Fatal(err)
	}
	var d deps
	app := fx.New(append(bootstrap.CommandOptions(cfg, 8),
		bootstrap.ConsolePages(), fx.Provide(console.NewViews), fx.Populate(&d))...)
	if err := app.Err(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := app.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = app.Stop(context.Background()) })
	w := &world{app: d.App, intake: d.Intake, billing: d.Billing, shipping: d.Shipping, invoicing: d.Invoicing, clock: d.Clock}
	seedOnce.Do(func() { w.seed(t) })
	w.handler = console.NewHandler(console.HandlerParams{Routes: d.Routes, Guard: testGuard{}})
	return w
}

// The test fixture: organizations of their own for the tests that change
// things, so that each test's records are its own.
const testFixture = `{
 "organizations": [
  {"id": "org_pg_ops", "name": "Pages Ops Co", "defaultWarehouseId": "wh_pg"},
  {"id": "org_pg_bill", "name": "Pages Billing Co", "defaultWarehouseId": "wh_pg"},
  {"id": "org_pg_close", "name": "Pages Closing Co", "defaultWarehouseId": "wh_pg"},
  {"id": "org_pg_admin", "name": "Pages Admin Co"}
 ],
 "warehouses": [
  {"id": "wh_pg", "name": "Pages DC", "active": true,
   "address": {"name": "Pages DC", "line1": "1 Test Way", "city": "Newark", "state": "NJ", "countryCode": "US", "postalCode": "07102"},
   "organizations": ["org_pg_ops", "org_pg_bill", "org_pg_close"]}
 ],
 "products": [
  {"id": "prod_pg_sock", "organizationId": "org_pg_ops", "sku": "PG-SOCK", "name": "Test Sock"},
  {"id": "prod_pg_bill", "organizationId": "org_pg_bill", "sku": "PG-BILL", "name": "Billed Thing"}
 ],
 "stock": [
  {"warehouseId": "wh_pg", "productId": "prod_pg_sock", "onHand": 500},
  {"warehouseId": "wh_pg", "productId": "prod_pg_bill", "onHand": 50}
 ],
 "rateCards": [
  {"organizationId": "org_pg_bill", "effectiveFrom": "MONTH-01", "fees": {"pick_pack_order": 250, "minimum_monthly": 0},
   "services": {"kitting": {"title": "Kitting", "unitCost": 75}}},
  {"organizationId": "org_pg_close", "effectiveFrom": "MONTH-01", "fees": {"pick_pack_order": 250, "minimum_monthly": 0}}
 ]
}`

func (w *world) seed(t *testing.T) {
	t.Helper()
	// The cards take effect this month: the open period is this month's.
	doc := strings.ReplaceAll(testFixture, "MONTH", w.clock.Now().UTC().Format("2006-01"))
	f, err := fixture.Decode(strings.NewReader(doc), w.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.app.Seed.Handle(context.Background(), application.Seed{Fixture: f}); err != nil {
		t.Fatal(err)
	}
}

// orderBody is a storefront order (made up: no real person's data) of one
// line of sku, with a customer and an address the console must mask.
func orderBody(id int64, sku string) []byte {
	return fmt.Appendf(nil, `{"id": %d, "order_number": %d, "email": "ann.example@example.org",
  "customer": {"id": 77, "email": "ann.example@example.org", "first_name": "Ann", "last_name": "Example"},
  "shipping_address": {"name": "Ann Example", "address1": "5 Hidden Lane", "city": "Trenton", "zip": "08608",
    "country_code": "US", "phone": "555-0111"},
  "line_items": [{"id": 1, "sku": %q, "quantity": 1, "requires_shipping": true, "title": "Test item"}]}`, id, id, sku)
}

// deliver sends an order to the intake as the storefront route does; an
// order that fails is recorded as failed with its body kept.
func (w *world) deliver(t *testing.T, org string, body []byte) error {
	t.Helper()
	o, err := intake.DecodeStorefrontOrder(body)
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	_, err = w.intake.ReceiveStorefrontOrder.Handle(context.Background(), intakeapp.ReceiveStorefrontOrder{
		OrganizationID: org, TraceID: "0123456789abcdef0123456789abcdef", Order: o, Body: body,
	})
	return err
}

// answer is a response's status and body.
type answer struct {
	status int
	body   string
	header http.Header
}

// get asks for a page as role.
func (w *world) get(t *testing.T, role, target string) answer {
	t.Helper()
	r := httptest.NewRequest(http.MethodGet, target, nil)
	if role != "" {
		r.Header.Set(roleHeader, role)
	}
	return w.serve(r)
}

// post submits a form as role.
func (w *world) post(t *testing.T, role, target string, form url.Values) answer {
	t.Helper()
	r := httptest.NewRequest(http.MethodPost, target, strings.NewReader(form.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.Header.Set("Sec-Fetch-Site", "same-origin")
	if role != "" {
		r.Header.Set(roleHeader, role)
	}
	return w.serve(r)
}

func (w *world) serve(r *http.Request) answer {
	rec := httptest.NewRecorder()
	w.handler.ServeHTTP(rec, r)
	res := rec.Result()
	b, _ := io.ReadAll(res.Body)
	_ = res.Body.Close()
	return answer{status: res.StatusCode, body: string(b), header: res.Header}
}

// want fails t unless a has status and holds every text.
func want(t *testing.T, a answer, status int, texts ...string) {
	t.Helper()
	if a.status != status {
		t.Fatalf("status %d, want %d; body:\n%s", a.status, status, a.body)
	}
	for _, s := range texts {
		if !strings.Contains(a.body, s) {
			t.Errorf("the page lacks %q; body:\n%s", s, a.body)
		}
	}
}

// wantNot fails t when a holds any of texts.
func wantNot(t *testing.T, a answer, texts ...string) {
	t.Helper()
	for _, s := range texts {
		if strings.Contains(a.body, s) {
			t.Errorf("the page holds %q, which it must not", s)
		}
	}
}

// auditRecords are the audit log's records of org.
func (w *world) auditRecords(t *testing.T, org string) []audit.Record {
	t.Helper()
	var out []audit.Record
	_, err := w.app.ListAuditRecords.Handle(context.Background(), application.ListAuditRecords{
		Query: auditports.Query{OrganizationID: org}, Each: func(r audit.Record) error { out = append(out, r); return nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// addProduct seeds a product of org with stock at wh_pg.
func (w *world) addProduct(t *testing.T, org, id, sku string) {
	t.Helper()
	doc := fmt.Sprintf(`{"products": [{"id": %q, "organizationId": %q, "sku": %q, "name": "Product %s"}],
 "stock": [{"warehouseId": "wh_pg", "productId": %q, "onHand": 100}]}`, id, org, sku, sku, id)
	f, err := fixture.Decode(strings.NewReader(doc), w.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.app.Seed.Handle(context.Background(), application.Seed{Fixture: f}); err != nil {
		t.Fatal(err)
	}
}

// take delivers an order that the intake takes and returns its shipment's
// ID.
func (w *world) take(t *testing.T, org string, body []byte) string {
	t.Helper()
	o, err := intake.DecodeStorefrontOrder(body)
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	res, err := w.intake.ReceiveStorefrontOrder.Handle(context.Background(), intakeapp.ReceiveStorefrontOrder{
		OrganizationID: org, TraceID: "0123456789abcdef0123456789abcdef", Order: o, Body: body,
	})
	if err != nil || res.ShipmentID == "" {
		t.Fatalf("the order was not taken: %+v %v", res, err)
	}
	return res.ShipmentID
}
