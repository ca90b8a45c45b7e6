package operator_test

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/acme3pl/fulfillment/adapters/postgres"
	pgoperator "github.com/acme3pl/fulfillment/adapters/postgres/operator"
	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/application/apptest"
	operatorapp "github.com/acme3pl/fulfillment/application/operator"
	"github.com/acme3pl/fulfillment/domain"
	operatordom "github.com/acme3pl/fulfillment/domain/operator"
	operatorports "github.com/acme3pl/fulfillment/ports/operator"
)

// operatorApp is the console's sign-in use cases on the test database,
// with the clock the test moves.
func operatorApp(t *testing.T, conns int, clock *apptest.Clock) *operatorapp.UseCases {
	t.Helper()
	db, err := postgres.Open(postgres.Options{DSN: testDSN, MaxOpenConns: conns})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return operatorapp.New(application.Deps[operatorports.Repositories]{
		UnitOfWork: postgres.NewUnitOfWork(db, pgoperator.Repositories), Repos: postgres.NewRepositories(db, pgoperator.Repositories), Clock: clock, IDs: &apptest.IDs{},
		Tracer: noop.NewTracerProvider().Tracer("test"), Log: slog.New(slog.DiscardHandler), Environment: domain.Sandbox,
	})
}

func openTestDB(t *testing.T) *bun.DB {
	t.Helper()
	db, err := postgres.Open(postgres.Options{DSN: testDSN, MaxOpenConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

func wantSignedOut(t *testing.T, app *operatorapp.UseCases, id, when string) {
	t.Helper()
	_, err := app.ResumeSession.Handle(context.Background(), operatorapp.ResumeSession{ID: id})
	if !errors.Is(err, operatordom.ErrSignedOut) || application.KindOf(err) != domain.KindInvalidCredentials {
		t.Fatalf("%s: resume = %v, want signed out", when, err)
	}
}

// A link is used once: of 20 concurrent redeems of one link exactly one
// starts a session; the others, and any later one, are refused.
func TestSignInLinkIsUsedOnce(t *testing.T) {
	ctx := context.Background()
	clock := &apptest.Clock{At: time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)}
	app := operatorApp(t, 20, clock)
	token, err := app.IssueSignInLink.Handle(ctx, operatorapp.IssueSignInLink{Subject: "once", Roles: []string{"viewer", "ops"}})
	if err != nil {
		t.Fatal(err)
	}
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		started  []operatorapp.Started
		refusals int
	)
	for range 20 {
		wg.Go(func() {
			s, err := app.RedeemSignInLink.Handle(ctx, operatorapp.RedeemSignInLink{Token: token})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				started = append(started, s)
			case errors.Is(err, operatordom.ErrLinkRefused):
				refusals++
			default:
				t.Errorf("redeem: %v", err)
			}
		})
	}
	wg.Wait()
	if len(started) != 1 || refusals != 19 {
		t.Fatalf("%d sessions, %d refusals; want exactly 1 and 19", len(started), refusals)
	}
	if p := started[0].Principal; p.Subject != "once" || p.Role != operatordom.Ops {
		t.Fatalf("principal %+v, want once as ops", p)
	}
	if n := countRows(t, openTestDB(t), `SELECT count(*) FROM console_sessions WHERE subject = 'once'`); n != 1 {
		t.Fatalf("%d sessions stored, want 1", n)
	}
	p, err := app.ResumeSession.Handle(ctx, operatorapp.ResumeSession{ID: started[0].ID})
	if err != nil || p.Subject != "once" {
		t.Fatalf("resume: %+v %v", p, err)
	}
	if _, err := app.RedeemSignInLink.Handle(ctx, operatorapp.RedeemSignInLink{Token: token}); !errors.Is(err, operatordom.ErrLinkRefused) {
		t.Fatalf("a later redeem: %v, want refused", err)
	}
}

// A link past its time to live is refused, and starts no session.
func TestSignInLinkExpires(t *testing.T) {
	ctx := context.Background()
	clock := &apptest.Clock{At: time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)}
	app := operatorApp(t, 2, clock)
	token, err := app.IssueSignInLink.Handle(ctx, operatorapp.IssueSignInLink{Subject: "late", Roles: []string{"admin"}, TTL: 5 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	clock.At = clock.At.Add(5 * time.Minute)
	if _, err := app.RedeemSignInLink.Handle(ctx, operatorapp.RedeemSignInLink{Token: token}); !errors.Is(err, operatordom.ErrLinkRefused) {
		t.Fatalf("an expired link: %v, want refused", err)
	}
	for _, bad := range []string{"", "not-a-token", token[:42] + "A"} {
		if _, err := app.RedeemSignInLink.Handle(ctx, operatorapp.RedeemSignInLink{Token: bad}); !errors.Is(err, operatordom.ErrLinkRefused) {
			t.Fatalf("token %q: %v, want refused", bad, err)
		}
	}
	if n := countRows(t, openTestDB(t), `SELECT count(*) FROM console_sessions WHERE subject = 'late'`); n != 0 {
		t.Fatalf("%d sessions of refused links", n)
	}
}

// Revoking a subject's sessions ends each at its next resume, and no one
// else's.
func TestRevokeSessions(t *testing.T) {
	ctx := context.Background()
	clock := &apptest.Clock{At: time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)}
	app := operatorApp(t, 2, clock)
	start := func(subject string) string {
		s, err := app.StartSession.Handle(ctx, operatorapp.StartSession{
			Principal: operatordom.Principal{Subject: subject, Email: subject + "@example.com", Role: operatordom.Billing}})
		if err != nil {
			t.Fatal(err)
		}
		return s.ID
	}
	a1, a2, other := start("revoked-ana"), start("revoked-ana"), start("revoked-bob")
	n, err := app.RevokeSessions.Handle(ctx, operatorapp.RevokeSessions{Subject: "revoked-ana"})
	if err != nil || n != 2 {
		t.Fatalf("revoke: %d %v, want 2", n, err)
	}
	wantSignedOut(t, app, a1, "the first revoked session")
	wantSignedOut(t, app, a2, "the second revoked session")
	p, err := app.ResumeSession.Handle(ctx, operatorapp.ResumeSession{ID: other})
	if err != nil || p != (operatordom.Principal{Subject: "revoked-bob", Email: "revoked-bob@example.com", Role: operatordom.Billing}) {
		t.Fatalf("another subject's session: %+v %v", p, err)
	}
	if n, err := app.RevokeSessions.Handle(ctx, operatorapp.RevokeSessions{Subject: "revoked-ana"}); err != nil || n != 0 {
		t.Fatalf("revoke again: %d %v, want 0", n, err)
	}
	if _, err := app.EndSession.Handle(ctx, operatorapp.EndSession{ID: other}); err != nil {
		t.Fatal(err)
	}
	wantSignedOut(t, app, other, "after logout")
}

// A session ends 30 minutes after its last use, and 12 hours after it
// started however often it is used; each use moves the idle timeout.
func TestSessionTimeouts(t *testing.T) {
	ctx := context.Background()
	t0 := time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)
	clock := &apptest.Clock{At: t0}
	app := operatorApp(t, 2, clock)
	start := func() string {
		s, err := app.StartSession.Handle(ctx, operatorapp.StartSession{Principal: operatordom.Principal{Subject: "timed", Role: operatordom.Viewer}})
		if err != nil {
			t.Fatal(err)
		}
		return s.ID
	}
	resume := func(id string) {
		t.Helper()
		if _, err := app.ResumeSession.Handle(ctx, operatorapp.ResumeSession{ID: id}); err != nil {
			t.Fatalf("resume at %s: %v", clock.At.Sub(t0), err)
		}
	}

	idle := start()
	clock.At = t0.Add(29 * time.Minute)
	resume(idle) // the idle timeout now runs from 9:29
	clock.At = t0.Add(58 * time.Minute)
	resume(idle)
	clock.At = t0.Add(88 * time.Minute)
	wantSignedOut(t, app, idle, "idle 30 minutes")
	clock.At = t0.Add(89 * time.Minute)
	wantSignedOut(t, app, idle, "after the idle timeout") // and its row is gone
	if n := countRows(t, openTestDB(t), `SELECT count(*) FROM console_sessions WHERE subject = 'timed'`); n != 0 {
		t.Fatalf("%d expired sessions kept", n)
	}

	clock.At = t0
	busy := start()
	for clock.At.Before(t0.Add(12*time.Hour - 20*time.Minute)) {
		clock.At = clock.At.Add(20 * time.Minute)
		resume(busy)
	}
	clock.At = t0.Add(12 * time.Hour)
	wantSignedOut(t, app, busy, "12 hours after the start")
}

// Production has no sign-in links.
func TestNoSignInLinksInProduction(t *testing.T) {
	db, err := postgres.Open(postgres.Options{DSN: testDSN, MaxOpenConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	h := operatorapp.NewIssueSignInLinkHandler(pgoperator.NewSessions(db), &apptest.Clock{At: time.Now()}, domain.Production)
	if _, err := h.Handle(context.Background(), operatorapp.IssueSignInLink{Subject: "prod", Roles: []string{"admin"}}); !errors.Is(err, operatorapp.ErrLinksInProduction) {
		t.Fatalf("a link in production: %v", err)
	}
	if n := countRows(t, db, `SELECT count(*) FROM console_signin_links WHERE subject = 'prod'`); n != 0 {
		t.Fatalf("%d links stored", n)
	}
}

var _ operatorports.Sessions = (*pgoperator.Sessions)(nil)
