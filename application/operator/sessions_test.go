package operator_test

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/trace/noop"

	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/application/apptest"
	operatorapp "github.com/acme3pl/fulfillment/application/operator"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/operator"
	operatorports "github.com/acme3pl/fulfillment/ports/operator"
)

// store is an in-memory operatorports.Sessions that counts its calls.
type store struct {
	mu       sync.Mutex
	links    map[string]operator.SignInLink
	used     map[string]bool
	sessions map[string]operator.Session
	calls    int
}

func newStore() *store {
	return &store{links: map[string]operator.SignInLink{}, used: map[string]bool{}, sessions: map[string]operator.Session{}}
}

func (s *store) CreateLink(_ context.Context, h []byte, l operator.SignInLink) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	s.links[string(h)] = l
	return nil
}

func (s *store) UseLink(_ context.Context, h []byte, now time.Time) (operator.SignInLink, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	l, ok := s.links[string(h)]
	if !ok || s.used[string(h)] || !now.Before(l.Expires) {
		return operator.SignInLink{}, false, nil
	}
	s.used[string(h)] = true
	return l, true, nil
}

func (s *store) CreateSession(_ context.Context, h []byte, ses operator.Session) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	s.sessions[string(h)] = ses
	return nil
}

func (s *store) Session(_ context.Context, h []byte) (operator.Session, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	ses, ok := s.sessions[string(h)]
	return ses, ok, nil
}

func (s *store) Touch(_ context.Context, h []byte, at time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	ses := s.sessions[string(h)]
	ses.LastUsed = at
	s.sessions[string(h)] = ses
	return nil
}

func (s *store) EndSession(_ context.Context, h []byte) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	_, ok := s.sessions[string(h)]
	delete(s.sessions, string(h))
	return ok, nil
}

func (s *store) EndSessionsOf(_ context.Context, subject string) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	n := 0
	for h, ses := range s.sessions {
		if ses.Principal.Subject == subject {
			delete(s.sessions, h)
			n++
		}
	}
	return n, nil
}

// uow runs fn with the store as its repositories' sessions.
type uow struct{ s *store }

func (u uow) Do(ctx context.Context, fn func(context.Context, operatorports.Repositories) error) error {
	return fn(ctx, operatorports.Repositories{OperatorSessions: u.s})
}

func newApp(s *store, clock *apptest.Clock, env domain.Environment) *operatorapp.UseCases {
	return operatorapp.New(application.Deps[operatorports.Repositories]{
		UnitOfWork: uow{s}, Repos: operatorports.Repositories{OperatorSessions: s}, Clock: clock, IDs: &apptest.IDs{},
		Tracer: noop.NewTracerProvider().Tracer(""), Log: slog.New(slog.DiscardHandler), Environment: env,
	})
}

func TestSignInAndSessions(t *testing.T) {
	ctx := context.Background()
	s, clock := newStore(), &apptest.Clock{At: time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)}
	app := newApp(s, clock, domain.Sandbox)
	token, err := app.IssueSignInLink.Handle(ctx, operatorapp.IssueSignInLink{Subject: "ana", Roles: []string{"ops"}})
	if err != nil || !operator.WellFormedSecret(token) {
		t.Fatalf("issue: %q %v", token, err)
	}
	if _, ok := s.links[string(token)]; ok {
		t.Fatal("the link's token is stored as it is, not hashed")
	}
	started, err := app.RedeemSignInLink.Handle(ctx, operatorapp.RedeemSignInLink{Token: token})
	if err != nil || started.Principal != (operator.Principal{Subject: "ana", Role: operator.Ops}) {
		t.Fatalf("redeem: %+v %v", started, err)
	}
	if _, ok := s.sessions[started.ID]; ok || len(s.sessions) != 1 {
		t.Fatal("the session's ID is stored as it is, not hashed")
	}
	_, err = app.RedeemSignInLink.Handle(ctx, operatorapp.RedeemSignInLink{Token: token})
	if !errors.Is(err, operator.ErrLinkRefused) || application.KindOf(err) != domain.KindInvalidCredentials {
		t.Fatalf("a used link: %v", err)
	}
	p, err := app.ResumeSession.Handle(ctx, operatorapp.ResumeSession{ID: started.ID})
	if err != nil || p.Subject != "ana" {
		t.Fatalf("resume: %+v %v", p, err)
	}

	// Malformed values are refused before any look-up.
	before := s.calls
	for _, bad := range []string{"", "x", started.ID + "x"} {
		if _, err := app.ResumeSession.Handle(ctx, operatorapp.ResumeSession{ID: bad}); !errors.Is(err, operator.ErrSignedOut) {
			t.Errorf("resume %q: %v", bad, err)
		}
		if _, err := app.RedeemSignInLink.Handle(ctx, operatorapp.RedeemSignInLink{Token: bad}); !errors.Is(err, operator.ErrLinkRefused) {
			t.Errorf("redeem %q: %v", bad, err)
		}
	}
	if s.calls != before {
		t.Fatalf("%d look-ups of malformed values", s.calls-before)
	}

	// A principal without a role starts no session.
	if _, err := app.StartSession.Handle(ctx, operatorapp.StartSession{Principal: operator.Principal{Subject: "nobody"}}); application.KindOf(err) != domain.KindInvalid {
		t.Fatalf("a session without a role: %v", err)
	}
	if _, err := app.RevokeSessions.Handle(ctx, operatorapp.RevokeSessions{Subject: " "}); application.KindOf(err) != domain.KindInvalid {
		t.Fatalf("revoke without a subject: %v", err)
	}
	if len(s.sessions) != 1 {
		t.Fatalf("%d sessions, want ana's", len(s.sessions))
	}
}

func TestNoLinksInProduction(t *testing.T) {
	s := newStore()
	app := newApp(s, &apptest.Clock{At: time.Now()}, domain.Production)
	_, err := app.IssueSignInLink.Handle(context.Background(), operatorapp.IssueSignInLink{Subject: "ana", Roles: []string{"admin"}})
	if !errors.Is(err, operatorapp.ErrLinksInProduction) || len(s.links) != 0 {
		t.Fatalf("a link in production: %v, %d stored", err, len(s.links))
	}
}
