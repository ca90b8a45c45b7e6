package billing_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/application/apptest"
	billingapp "github.com/acme3pl/fulfillment/application/billing"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/billing"
	"github.com/acme3pl/fulfillment/domain/invoicing"
	auditports "github.com/acme3pl/fulfillment/ports/audit"
	billingports "github.com/acme3pl/fulfillment/ports/billing"
	eventsports "github.com/acme3pl/fulfillment/ports/events"
	invoicingports "github.com/acme3pl/fulfillment/ports/invoicing"
)

// The use cases' own logic with in-memory fakes; the SQL is tested in
// adapters/postgres against the real database.

// fakeUoW runs fn on the fakes, as one transaction would, one at a time
// (a run's transactions beside each other take turns); a failed fn's calls
// stay recorded, and the periods and the key counter are rolled back.
type fakeUoW struct {
	r  billingports.Repositories
	mu *sync.Mutex
}

func (u fakeUoW) Do(ctx context.Context, fn func(context.Context, billingports.Repositories) error) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	p := u.r.BillingPeriods.(*fakePeriods)
	open, last := maps.Clone(p.open), p.last
	err := fn(ctx, u.r)
	if err != nil {
		p.open, p.last = open, last
	}
	return err
}

// calls records the repositories' calls in order.
type calls []string

var callsMu sync.Mutex // a run's transactions beside each other record calls too

func (c *calls) add(format string, args ...any) {
	callsMu.Lock()
	defer callsMu.Unlock()
	*c = append(*c, fmt.Sprintf(format, args...))
}

// fakeCharges: no facts to accrue; Sums answers sums, or byOrg's for an
// organization in it, and fails for an organization of failing.
type fakeCharges struct {
	billingports.ChargeRepository
	log     *calls
	sums    []billing.Sum
	byOrg   map[string][]billing.Sum
	failing map[string]bool
}

func (f fakeCharges) CatchUp(_ context.Context, orgs []string, through time.Time) (map[billing.Fee]int, error) {
	f.log.add("CatchUp(%q, %s)", strings.Join(orgs, ","), through.Format(time.RFC3339))
	return map[billing.Fee]int{}, nil
}

func (f fakeCharges) AccrueStorage(_ context.Context, orgs []string, through billing.Date) (map[billing.Fee]int, error) {
	f.log.add("AccrueStorage(%q, %s)", strings.Join(orgs, ","), through)
	return map[billing.Fee]int{}, nil
}

func (f fakeCharges) Sums(_ context.Context, ws []billingports.Window) ([][]billing.Sum, error) {
	out := make([][]billing.Sum, len(ws))
	var names []string
	for i, w := range ws {
		if f.failing[w.OrganizationID] {
			return nil, fmt.Errorf("the sums of %s: bigint out of range", w.OrganizationID)
		}
		names = append(names, w.OrganizationID+" "+w.End.Format(time.RFC3339))
		out[i] = f.sums
		if sums, ok := f.byOrg[w.OrganizationID]; ok {
			out[i] = sums
		}
	}
	f.log.add("Sums(%s)", strings.Join(names, ", "))
	return out, nil
}

type fakeCards struct {
	billingports.RateCardRepository
}

func (fakeCards) Minimums(_ context.Context, ws []billingports.Window) ([]int64, error) {
	return make([]int64, len(ws)), nil
}

// fakePeriods holds one open period per organization and the statuses of
// finalized invoices.
type fakePeriods struct {
	billingports.PeriodRepository
	log    *calls
	open   map[string]billingports.OpenPeriod
	status map[string]string
	last   int // the last key number taken
}

func (f *fakePeriods) Due(_ context.Context, endedBy time.Time) ([]billingports.OpenPeriod, error) {
	f.log.add("Due")
	var out []billingports.OpenPeriod
	for _, p := range f.open {
		if !p.Period.End.After(endedBy) {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(a, b billingports.OpenPeriod) int { return strings.Compare(a.OrganizationID, b.OrganizationID) })
	return out, nil
}

func (f *fakePeriods) Billed(context.Context) ([]string, error) {
	f.log.add("Billed")
	return slices.Sorted(maps.Keys(f.open)), nil
}

func (f *fakePeriods) TryLockBilling(_ context.Context, ids []string) ([]string, error) {
	f.log.add("TryLockBilling(%s)", strings.Join(ids, ","))
	return ids, nil
}

func (f *fakePeriods) LockKeys(_ context.Context, year int) error {
	f.log.add("LockKeys(%d)", year)
	return nil
}

func (f *fakePeriods) LockOpenMany(_ context.Context, ids []string) ([]billingports.OpenPeriod, error) {
	f.log.add("LockOpenMany(%s)", strings.Join(ids, ","))
	var out []billingports.OpenPeriod
	for _, id := range ids {
		if p, ok := f.open[id]; ok {
			out = append(out, p)
		}
	}
	return out, nil
}

func (f *fakePeriods) LockOpen(_ context.Context, org string) (billingports.OpenPeriod, error) {
	f.log.add("LockOpen(%s)", org)
	p, ok := f.open[org]
	if !ok {
		return p, domain.ErrNotFound
	}
	return p, nil
}

func (f *fakePeriods) LockBilling(_ context.Context, orgs []string) error {
	f.log.add("LockBilling(%s)", strings.Join(orgs, ","))
	return nil
}

func (f *fakePeriods) Credits(_ context.Context, ws []billingports.Window) ([]int64, error) {
	return make([]int64, len(ws)), nil
}

func (f *fakePeriods) Offboard(_ context.Context, org string, at time.Time) error {
	f.log.add("Offboard(%s, %s)", org, at.Format(time.RFC3339))
	return nil
}

func (f *fakePeriods) Finalize(_ context.Context, fs []billingports.Finalization) ([]billingports.FinalizedInvoice, error) {
	var out []billingports.FinalizedInvoice
	for _, fin := range fs {
		p := fin.Period
		f.log.add("Finalize(%s, %s)", p.OrganizationID, fin.End.Format(time.RFC3339))
		f.open[p.OrganizationID] = billingports.OpenPeriod{OrganizationID: p.OrganizationID, InvoiceID: fin.NextInvoiceID,
			Period: billing.Period{Start: fin.End, End: fin.NextEnd}}
		fi := billingports.FinalizedInvoice{OrganizationID: p.OrganizationID, InvoiceID: p.InvoiceID, Period: billing.Period{Start: p.Period.Start, End: fin.End}}
		if inv := fin.Invoice; inv != nil {
			f.last++
			fi.Key, fi.TotalAmount = billing.FormatKey(inv.FinalizedAt.UTC().Year(), f.last), inv.TotalAmount
			fi.Invoice = invoicing.RehydrateInvoice(invoicing.InvoiceParams{ID: inv.ID, OrganizationID: inv.OrganizationID,
				Status: invoicing.InvoiceUnpaid}, inv.TotalAmount)
		}
		out = append(out, fi)
	}
	return out, nil
}

func (f *fakePeriods) Collect(context.Context, time.Time, time.Duration) ([]billingports.InvoiceRef, error) {
	f.log.add("Collect")
	return nil, nil
}

func (f *fakePeriods) Status(_ context.Context, id string) (string, string, error) {
	s, ok := f.status[id]
	if !ok {
		return "", "", domain.ErrNotFound
	}
	return s, "org_a", nil
}

// fakeInvoices reads an invoice back as the API would show it (here: its
// ID and organization only).
type fakeInvoices struct {
	invoicingports.InvoiceRepository
}

func (fakeInvoices) Get(_ context.Context, org, id string) (*invoicing.Invoice, error) {
	return invoicing.RehydrateInvoice(invoicing.InvoiceParams{ID: id, OrganizationID: org}, 0), nil
}

// fakeEvents logs the events recorded.
type fakeEvents struct{ log *calls }

func (e fakeEvents) Record(_ context.Context, ev eventsports.Event) error {
	if ev.Type == eventsports.EventOperatorAction {
		return nil // the audit's, not billing's: apptest.AuditLog keeps them
	}
	e.log.add("Record(%s %s)", ev.Type, ev.Subject)
	return nil
}

func (f *fakePeriods) SetStatus(_ context.Context, id, from, to string, _ time.Time) error {
	f.log.add("SetStatus(%s, %s→%s)", id, from, to)
	f.status[id] = to
	return nil
}

type fixture struct {
	deps    billingapp.Deps
	log     *calls
	charges fakeCharges
	periods *fakePeriods
	run     *billingapp.RunBillingHandler
	closeP  *billingapp.ClosePeriodHandler
	status  *billingapp.ChangeInvoiceStatusHandler
}

func newFixture(now time.Time, sums []billing.Sum) fixture {
	log := &calls{}
	periods := &fakePeriods{log: log, open: map[string]billingports.OpenPeriod{}, status: map[string]string{}}
	charges := fakeCharges{log: log, sums: sums, byOrg: map[string][]billing.Sum{}, failing: map[string]bool{}}
	r := billingports.Repositories{Charges: charges, RateCards: fakeCards{}, BillingPeriods: periods,
		Invoices: fakeInvoices{}, Trail: auditports.Trail{Events: fakeEvents{log: log}, Audit: &apptest.AuditLog{}}}
	d := billingapp.Deps{UnitOfWork: fakeUoW{r, &sync.Mutex{}}, Repos: r, Clock: &apptest.Clock{At: now}, IDs: &apptest.IDs{},
		Settings: billingapp.Settings{Calendar: billing.NewCalendar(time.UTC), Grace: 24 * time.Hour, Terms: 720 * time.Hour,
			CollectionsAfter: 720 * time.Hour}}
	return fixture{deps: d, log: log, charges: charges, periods: periods, run: billingapp.NewRunBillingHandler(d),
		closeP: billingapp.NewClosePeriodHandler(d), status: billingapp.NewChangeInvoiceStatusHandler(d)}
}

func november(org string) billingports.OpenPeriod {
	return billingports.OpenPeriod{OrganizationID: org, InvoiceID: "inv_" + org, Period: billing.Period{
		Start: time.Date(2030, 11, 1, 0, 0, 0, 0, time.UTC), End: time.Date(2030, 12, 1, 0, 0, 0, 0, time.UTC)}}
}

var shipSum = []billing.Sum{{Fee: billing.PickPackOrder, Title: "Pick & Pack orders", UnitCost: 250, WarehouseID: "wh", Divisor: 1, Milli: 2000, Facts: 2}}

// A run accrues first, a batch of organizations at a time under the
// billing locks free now (the catch-up's watermark one grace behind the
// clock, their storage up to yesterday), then finalizes the periods due:
// locked all at once (their billing locks with them), their storage
// accrued under those locks, summed all at once and finalized all at once,
// issued at a time read once the keys' counter is held; then it collects.
func TestRunBillingOrderOfSteps(t *testing.T) {
	now := time.Date(2030, 12, 2, 0, 0, 0, 0, time.UTC)
	f := newFixture(now, shipSum)
	f.periods.open["org_a"], f.periods.open["org_b"] = november("org_a"), november("org_b")
	res, err := f.run.Handle(context.Background(), billingapp.RunBilling{})
	if err != nil {
		t.Fatal(err)
	}
	want := calls{"Billed", "TryLockBilling(org_a,org_b)", `CatchUp("org_a,org_b", 2030-12-01T00:00:00Z)`,
		`AccrueStorage("org_a,org_b", 2030-12-01)`, "Due", "LockOpenMany(org_a,org_b)",
		`AccrueStorage("org_a,org_b", 2030-11-30)`,
		"Sums(org_a 2030-12-01T00:00:00Z, org_b 2030-12-01T00:00:00Z)", "LockKeys(2030)",
		"Finalize(org_a, 2030-12-01T00:00:00Z)", "Finalize(org_b, 2030-12-01T00:00:00Z)",
		"Record(invoice.finalized inv_org_a)", "Record(invoice.finalized inv_org_b)",
		"Due", "Collect"}
	if !slices.Equal(*f.log, want) {
		t.Fatalf("calls\n %q\nwant\n %q", *f.log, want)
	}
	if res.Invoices() != 2 || res.Finalized[0].OrganizationID != "org_a" || res.Finalized[0].TotalAmount != 500 {
		t.Fatalf("finalized %+v", res.Finalized)
	}
	if res.Finalized[0].Key != "INV-2030-000001" || res.Finalized[1].Key != "INV-2030-000002" {
		t.Fatalf("keys %s %s", res.Finalized[0].Key, res.Finalized[1].Key)
	}
}

// A period not yet past its grace is left open: the run finalizes nothing.
func TestRunBillingLeavesAPeriodInItsGrace(t *testing.T) {
	f := newFixture(time.Date(2030, 12, 1, 23, 59, 0, 0, time.UTC), shipSum)
	f.periods.open["org_a"] = november("org_a")
	res, err := f.run.Handle(context.Background(), billingapp.RunBilling{})
	if err != nil || len(res.Finalized) != 0 {
		t.Fatalf("finalized %+v, %v; want nothing", res.Finalized, err)
	}
	if slices.ContainsFunc(*f.log, func(c string) bool { return strings.HasPrefix(c, "Finalize") }) {
		t.Fatalf("calls %q finalize a period in its grace", *f.log)
	}
}

// Closing a period that has ended already (a draft) finalizes it at its
// own end, not at the moment of the close, and then the month open beside
// it up to the close.
func TestClosePeriodEndedAlready(t *testing.T) {
	f := newFixture(time.Date(2030, 12, 1, 12, 0, 0, 0, time.UTC), shipSum)
	f.periods.open["org_a"] = november("org_a")
	out, err := f.closeP.Handle(context.Background(), billingapp.ClosePeriod{OrganizationID: "org_a", Actor: apptest.Operator})
	if err != nil {
		t.Fatal(err)
	}
	if end := time.Date(2030, 12, 1, 0, 0, 0, 0, time.UTC); out.Draft == nil || !out.Draft.Period.End.Equal(end) {
		t.Fatalf("draft closed %+v, want at the period's end %s", out.Draft, end)
	}
	if now := time.Date(2030, 12, 1, 12, 0, 0, 0, time.UTC); !out.Period.End.Equal(now) || !out.Period.Start.Equal(out.Draft.Period.End) {
		t.Fatalf("then %s to %s, want December from its start to the close %s", out.Period.Start, out.Period.End, now)
	}
	if (*f.log)[0] != "LockBilling(org_a)" || !strings.HasPrefix((*f.log)[1], `CatchUp("org_a"`) || !slices.Contains(*f.log, "LockOpen(org_a)") {
		t.Fatalf("calls %q: the billing lock, then the accrual, then the period's row", *f.log)
	}
	if last := (*f.log)[len(*f.log)-1]; last != "Offboard(org_a, 2030-12-01T12:00:00Z)" {
		t.Fatalf("calls %q: the close must off-board the organization", *f.log)
	}
}

// A period that starts at the moment of the close (closed at this very
// instant already) has nothing to finalize: the close succeeds, with no
// invoice.
func TestClosePeriodStartingNow(t *testing.T) {
	now := time.Date(2030, 11, 1, 0, 0, 0, 0, time.UTC)
	f := newFixture(now, nil)
	f.periods.open["org_a"] = november("org_a")
	out, err := f.closeP.Handle(context.Background(), billingapp.ClosePeriod{OrganizationID: "org_a", Actor: apptest.Operator})
	if err != nil || out.Key != "" || out.Invoice != nil {
		t.Fatalf("close = %+v, %v; want nothing finalized", out, err)
	}
	if slices.ContainsFunc(*f.log, func(c string) bool { return strings.HasPrefix(c, "Finalize") }) {
		t.Fatalf("calls %q finalize an empty period", *f.log)
	}
}

// Status transitions: a refused one writes nothing; an allowed one writes
// from the status read to the one asked.
func TestChangeInvoiceStatus(t *testing.T) {
	f := newFixture(time.Date(2031, 1, 5, 0, 0, 0, 0, time.UTC), nil)
	f.periods.status["inv_paid"], f.periods.status["inv_unpaid"] = "paid", "unpaid"
	ctx := context.Background()
	for _, to := range []string{"unpaid", "collecting", "pending_payment"} {
		if _, err := f.status.Handle(ctx, billingapp.ChangeInvoiceStatus{InvoiceID: "inv_paid", To: to, Actor: apptest.Operator}); err == nil {
			t.Errorf("paid → %s accepted", to)
		}
	}
	if _, err := f.status.Handle(ctx, billingapp.ChangeInvoiceStatus{InvoiceID: "inv_unpaid", To: "shipped", Actor: apptest.Operator}); err == nil {
		t.Error("an unknown status accepted")
	}
	if len(*f.log) != 0 {
		t.Fatalf("refusals wrote %q", *f.log)
	}
	from, err := f.status.Handle(ctx, billingapp.ChangeInvoiceStatus{InvoiceID: "inv_unpaid", To: "paid", Actor: apptest.Operator})
	if err != nil || from != invoicing.InvoiceUnpaid || !slices.Equal(*f.log, calls{"SetStatus(inv_unpaid, unpaid→paid)", "Record(invoice.status_changed inv_unpaid)"}) {
		t.Fatalf("unpaid → paid: from %q, %v, calls %q", from, err, *f.log)
	}
	if _, err := f.status.Handle(ctx, billingapp.ChangeInvoiceStatus{InvoiceID: "inv_none", To: "paid", Actor: apptest.Operator}); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("an unknown invoice: %v, want ErrNotFound", err)
	}
}

// A period that cannot be finalized (its sums fail) is reported and
// skipped: its batch is tried again one period at a time, every other
// organization's period is finalized by the same run, the run still
// collects, and its error names the one that failed.
func TestRunBillingSkipsAPeriodThatCannotBeFinalized(t *testing.T) {
	now := time.Date(2030, 12, 2, 0, 0, 0, 0, time.UTC)
	f := newFixture(now, shipSum)
	for _, org := range []string{"org_a", "org_b", "org_c"} {
		f.periods.open[org] = november(org)
	}
	f.charges.failing["org_b"] = true
	res, err := f.run.Handle(context.Background(), billingapp.RunBilling{})
	if err == nil || !strings.Contains(err.Error(), "org_b from 2030-11-01T00:00:00Z") || strings.Contains(err.Error(), "org_a") {
		t.Fatalf("run error %v; want one naming org_b's period only", err)
	}
	var orgs []string
	for _, fi := range res.Finalized {
		orgs = append(orgs, fi.OrganizationID)
	}
	if !slices.Equal(orgs, []string{"org_a", "org_c"}) || res.Invoices() != 2 {
		t.Fatalf("finalized %q; want org_a and org_c", orgs)
	}
	if len(res.Failed) != 1 || res.Failed[0].Period.OrganizationID != "org_b" {
		t.Fatalf("failed %+v; want org_b", res.Failed)
	}
	if !slices.Contains(*f.log, "Collect") {
		t.Fatalf("calls %q: the run must still collect", *f.log)
	}
	if _, ok := f.periods.open["org_b"]; !ok || f.periods.open["org_b"].Period.Start.Month() != time.November {
		t.Fatalf("org_b's November must stay open: %+v", f.periods.open["org_b"])
	}
}
