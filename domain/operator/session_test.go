package operator_test

import (
	"errors"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/operator"
)

var t0 = time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)

func TestSessionExpiry(t *testing.T) {
	s, err := operator.NewSession(operator.Principal{Subject: "ana", Role: operator.Viewer}, t0)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		lastUsed time.Time
		now      time.Time
		want     bool
	}{
		{"just started", t0, t0, false},
		{"idle a second short of the timeout", t0, t0.Add(operator.IdleTimeout - time.Second), false},
		{"idle for the timeout", t0, t0.Add(operator.IdleTimeout), true},
		{"used a minute ago, 11h59m in", t0.Add(11*time.Hour + 58*time.Minute), t0.Add(11*time.Hour + 59*time.Minute), false},
		{"used a minute ago, 12h in", t0.Add(11*time.Hour + 59*time.Minute), t0.Add(12 * time.Hour), true},
	}
	for _, c := range cases {
		s.LastUsed = c.lastUsed
		if got := s.Expired(c.now); got != c.want {
			t.Errorf("%s: Expired = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestNewSignInLink(t *testing.T) {
	l, err := operator.NewSignInLink("ana", []string{"viewer", " billing", "ops"}, 0, t0)
	if err != nil {
		t.Fatal(err)
	}
	if l.Principal.Role != operator.Billing || l.Principal.Subject != "ana" || !l.Expires.Equal(t0.Add(operator.DefaultLinkTTL)) {
		t.Fatalf("link = %+v, want ana as billing for 15m", l)
	}
	if !l.Usable(t0.Add(operator.DefaultLinkTTL-time.Second)) || l.Usable(t0.Add(operator.DefaultLinkTTL)) {
		t.Fatal("a link is usable until its time to live ends, not after")
	}
	for name, c := range map[string]struct {
		subject string
		roles   []string
		ttl     time.Duration
	}{
		"no subject":    {"", []string{"viewer"}, 0},
		"spaced":        {" ana", []string{"viewer"}, 0},
		"two lines":     {"ana\nbob", []string{"viewer"}, 0},
		"no role":       {"ana", nil, 0},
		"unknown role":  {"ana", []string{"viewer", "root"}, 0},
		"ttl too short": {"ana", []string{"viewer"}, 30 * time.Second},
		"ttl too long":  {"ana", []string{"viewer"}, 25 * time.Hour},
		"negative ttl":  {"ana", []string{"viewer"}, -time.Minute},
	} {
		var ve *domain.ValidationError
		if _, err := operator.NewSignInLink(c.subject, c.roles, c.ttl, t0); !errors.As(err, &ve) {
			t.Errorf("%s: err = %v, want a validation error", name, err)
		}
	}
	if _, err := operator.NewSignInLink("ana", []string{"admin"}, operator.MaxLinkTTL, t0); err != nil {
		t.Errorf("the longest ttl: %v", err)
	}
}

func TestSecrets(t *testing.T) {
	a, err := operator.NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := operator.NewSecret()
	if a == b || !operator.WellFormedSecret(a) || len(operator.HashSecret(a)) != 32 {
		t.Fatalf("secrets %q %q", a, b)
	}
	for _, bad := range []string{"", "short", a + "x", a[:42] + "!"} {
		if operator.WellFormedSecret(bad) {
			t.Errorf("%q is not a secret", bad)
		}
	}
}
