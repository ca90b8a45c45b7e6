package invoicing

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/acme3pl/fulfillment/adapters/httpapi"
	"github.com/acme3pl/fulfillment/adapters/telemetry"
	"github.com/acme3pl/fulfillment/application"
	invoicingapp "github.com/acme3pl/fulfillment/application/invoicing"
	"github.com/acme3pl/fulfillment/domain"
	accessports "github.com/acme3pl/fulfillment/ports/access"
	invoicingports "github.com/acme3pl/fulfillment/ports/invoicing"
)

// The CSV download of an invoice's charges, served through the whole
// handler (admission, access log) on a real listener, its use case a stub
// that hands out the charges chargesOf says.

type oneOrganization struct{}

func (oneOrganization) VerifyAccessToken(context.Context, string) (accessports.Principal, error) {
	return accessports.Principal{OrganizationID: "org_1", Scopes: []domain.Scope{domain.ScopeInvoices}}, nil
}

// syncLog is the server's log, read while it runs.
type syncLog struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *syncLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *syncLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

type exportServer struct {
	URL  string
	logs *syncLog
}

// newExportServer serves the charges route behind an admission of one
// slot whose request deadline is timeout and whose downloads' is export
// (0: none of their own), a client's chunk waited for at most stall.
func newExportServer(t *testing.T, timeout, export, stall time.Duration,
	chargesOf func(ctx context.Context, in invoicingapp.ListInvoiceCharges) (bool, error),
) *exportServer {
	t.Helper()
	logs := &syncLog{}
	log := slog.New(slog.NewJSONHandler(logs, nil))
	var opts []httpapi.AdmissionOption
	if export > 0 {
		opts = append(opts, httpapi.WithExportTimeout(export))
	}
	errs := httpapi.ErrorMapper{Log: log}
	auth := httpapi.Authenticator{Tokens: oneOrganization{}, Errors: errs, Admission: httpapi.NewAdmission(timeout, 1, log, opts...), Log: log}
	app := &invoicingapp.UseCases{ListInvoiceCharges: application.HandlerFunc[invoicingapp.ListInvoiceCharges, bool](chargesOf)}
	charges := NewInvoiceCharges(app, auth, errs)
	charges.stall = stall
	h := httpapi.NewHandler(httpapi.RouterParams{Routes: []httpapi.Routes{charges}, TracerProvider: noop.NewTracerProvider(),
		Propagator: propagation.TraceContext{}, Metrics: telemetry.NewMetrics(), Log: log})
	srv := httptest.NewUnstartedServer(h)
	// The server's bounds on an exchange, as NewServer's (30 s), scaled
	// down: a download outlives them.
	srv.Config.ReadTimeout, srv.Config.WriteTimeout = 300*time.Millisecond, 300*time.Millisecond
	srv.Start()
	t.Cleanup(srv.Close)
	return &exportServer{URL: srv.URL, logs: logs}
}

func (s *exportServer) get(t *testing.T, invoice string) (*http.Response, error) {
	t.Helper()
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, s.URL+"/v0/invoices/"+invoice+"/charges?format=csv", nil)
	req.Header.Set("Authorization", "Bearer tok")
	return http.DefaultClient.Do(req)
}

func charge(id int64, title, sourceID string, unitCost int64) invoicingports.InvoiceCharge {
	return invoicingports.InvoiceCharge{ID: id, Fee: "operator", Title: title, QuantityMilli: 1500, UnitCost: unitCost,
		OccurredAt: time.Date(2026, 11, 3, 10, 0, 0, 0, time.UTC), SourceType: "operator", SourceID: sourceID}
}

// A text cell that a spreadsheet would run as a formula is written with a
// leading ': an operator's title, a WMS's reference; numbers stay numbers,
// a credit's negative unit cost included.
func TestChargesCSVEscapesFormulaCells(t *testing.T) {
	charges := []invoicingports.InvoiceCharge{
		charge(1, "=1+2", "ref_1", 250),
		charge(2, "Receiving", `=HYPERLINK("http://evil.example","x")`, 100),
		charge(3, "-5 off", "ref_3", -500),
		charge(4, "+33 units", "@SUM(A1:A9)", 1),
		charge(5, "\tTabbed", "\rreturn", 2),
		charge(6, "Pick & Pack orders", "shp_1", 3),
	}
	s := newExportServer(t, time.Second, 0, 0, func(_ context.Context, in invoicingapp.ListInvoiceCharges) (bool, error) {
		for _, c := range charges {
			if err := in.Each(c); err != nil {
				return false, err
			}
		}
		return false, nil
	})
	resp, err := s.get(t, "inv_1")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	rows, err := csv.NewReader(resp.Body).ReadAll()
	if err != nil || len(rows) != len(charges)+1 {
		t.Fatalf("%d rows (%v), want %d", len(rows), err, len(charges)+1)
	}
	want := []struct{ title, sourceID, quantity, unitCost string }{
		{"'=1+2", "ref_1", "1.5", "250"},
		{"Receiving", `'=HYPERLINK("http://evil.example","x")`, "1.5", "100"},
		{"'-5 off", "ref_3", "1.5", "-500"},
		{"'+33 units", "'@SUM(A1:A9)", "1.5", "1"},
		{"'\tTabbed", "'return", "1.5", "2"}, // the CSV writer drops a lone carriage return (CRLF line ends)
		{"Pick & Pack orders", "shp_1", "1.5", "3"},
	}
	for i, w := range want {
		row := rows[i+1]
		if row[2] != w.title || row[8] != w.sourceID || row[3] != w.quantity || row[4] != w.unitCost {
			t.Errorf("row %d: title %q source.id %q quantity %q unitCost %q, want %q %q %q %q",
				i+1, row[2], row[8], row[3], row[4], w.title, w.sourceID, w.quantity, w.unitCost)
		}
		if row[0] != "chg_"+string(rune('1'+i)) || row[1] != "operator" || row[7] != "operator" {
			t.Errorf("row %d: id %q fee %q source.type %q", i+1, row[0], row[1], row[7])
		}
	}
}

// A download outlives the request deadline, up to its own: every row
// arrives, in more time than a request may take.
func TestDownloadHasItsOwnDeadline(t *testing.T) {
	const n = 40
	s := newExportServer(t, 200*time.Millisecond, 5*time.Second, 0, func(ctx context.Context, in invoicingapp.ListInvoiceCharges) (bool, error) {
		for i := range n {
			select {
			case <-ctx.Done():
				return false, ctx.Err()
			case <-time.After(15 * time.Millisecond): // 600 ms in all: three request deadlines
			}
			if err := in.Each(charge(int64(i+1), "Storage", "2026-11-03", 7)); err != nil {
				return false, err
			}
		}
		return false, nil
	})
	start := time.Now()
	resp, err := s.get(t, "inv_1")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	rows, err := csv.NewReader(resp.Body).ReadAll()
	if resp.StatusCode != http.StatusOK || err != nil || len(rows) != n+1 {
		t.Fatalf("status %d, %d rows (%v) after %s, want 200 and %d rows", resp.StatusCode, len(rows), err, time.Since(start), n+1)
	}
	if d := time.Since(start); d < 500*time.Millisecond {
		t.Fatalf("the download took %s: it proves nothing against a 200ms deadline", d)
	}
	// The download's own deadline still ends one that runs past it: cut
	// short, never ended as if complete.
	s = newExportServer(t, 200*time.Millisecond, 400*time.Millisecond, 0, func(ctx context.Context, in invoicingapp.ListInvoiceCharges) (bool, error) {
		for i := 0; ; i++ {
			select {
			case <-ctx.Done():
				return false, ctx.Err()
			case <-time.After(15 * time.Millisecond):
			}
			if err := in.Each(charge(int64(i+1), "Storage", "2026-11-03", 7)); err != nil {
				return false, err
			}
		}
	})
	if cut, err := s.get(t, "inv_1"); err == nil { // err: cut before its first bytes were sent
		defer func() { _ = cut.Body.Close() }()
		if _, err := io.ReadAll(cut.Body); err == nil {
			t.Fatal("a download past its own deadline ended as if complete")
		}
	}
}

// endlessCharges hands out charges until its context ends (a client's
// month that the client does not read) and reports on ended when it
// returned; inv_small has one charge.
func endlessCharges(ended chan<- time.Time) func(ctx context.Context, in invoicingapp.ListInvoiceCharges) (bool, error) {
	title := strings.Repeat("x", 1000)
	return func(ctx context.Context, in invoicingapp.ListInvoiceCharges) (bool, error) {
		if in.InvoiceID == "inv_small" {
			return false, in.Each(charge(1, "Storage", "2026-11-03", 7))
		}
		defer func() { ended <- time.Now() }()
		for i := 0; ; i++ {
			if err := ctx.Err(); err != nil {
				return false, err
			}
			if err := in.Each(charge(int64(i+1), title, "2026-11-03", 7)); err != nil {
				return false, err
			}
		}
	}
}

// startDownload sends the request on a connection of its own and reads
// the answer's first bytes, then leaves the rest unread.
func startDownload(t *testing.T, s *exportServer) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(s.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	if _, err := io.WriteString(conn, "GET /v0/invoices/inv_big/charges?format=csv HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer tok\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	status, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil || !strings.Contains(status, " 200 ") {
		t.Fatalf("the download began with %q (%v)", status, err)
	}
	return conn
}

// wantSlotFree checks that a second request is served: the admission has
// one slot.
func wantSlotFree(t *testing.T, s *exportServer) {
	t.Helper()
	resp, err := s.get(t, "inv_small")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	if b, _ := io.ReadAll(resp.Body); resp.StatusCode != http.StatusOK {
		t.Fatalf("the next request: %d %s, want 200: the stalled download still holds the slot", resp.StatusCode, b)
	}
}

// A client that stops reading is cut off once a chunk has waited for it
// longer than the stall bound: the download ends, and frees its slot.
func TestStalledDownloadFreesItsSlot(t *testing.T) {
	ended := make(chan time.Time, 1)
	s := newExportServer(t, time.Second, time.Minute, 300*time.Millisecond, endlessCharges(ended))
	startDownload(t, s)
	select {
	case <-ended:
	case <-time.After(10 * time.Second):
		t.Fatal("the download still runs 10 s after its client stopped reading")
	}
	wantSlotFree(t, s)
	s.wantLogged499(t)
}

// A client that goes away mid-download: its download ends at once and
// frees its slot; logged as 499, not as an error.
func TestVanishedClientFreesItsSlot(t *testing.T) {
	ended := make(chan time.Time, 1)
	s := newExportServer(t, time.Second, time.Minute, time.Minute, endlessCharges(ended))
	conn := startDownload(t, s)
	_ = conn.Close()
	gone := time.Now()
	select {
	case at := <-ended:
		if d := at.Sub(gone); d > time.Second {
			t.Errorf("the download ended %s after its client went away", d)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the download still runs 10 s after its client went away")
	}
	wantSlotFree(t, s)
	s.wantLogged499(t)
}

// wantLogged499 waits (up to 2 s: the line is written once the handler has
// returned) for the download's access log line with status 499, and checks
// that no error line was logged.
func (s *exportServer) wantLogged499(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for !strings.Contains(s.logs.String(), `"status":499`) && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if logs := s.logs.String(); !strings.Contains(logs, `"status":499`) || strings.Contains(logs, `"level":"ERROR"`) {
		t.Errorf("want the download logged as 499, without an error line:\n%s", logs)
	}
}
