package application

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/ports"
)

// The table's rows agree with each other: what is a fault is what answers
// 5xx, every 503 says `unavailable` in both shapes, and every kind appears
// once.
func TestErrorTableIsConsistent(t *testing.T) {
	kinds := map[string]bool{}
	for _, row := range append(errorTable, struct {
		match func(error) bool
		class ErrorClass
	}{nil, internalError}) {
		c := row.class
		if kinds[c.Kind] {
			t.Errorf("kind %q has two rows", c.Kind)
		}
		kinds[c.Kind] = true
		if c.Fault != (c.Status >= 500) {
			t.Errorf("%s: fault %v with status %d", c.Kind, c.Fault, c.Status)
		}
		if c.Status == http.StatusServiceUnavailable && (c.ProblemCode != "unavailable" || c.IntakeCode != "unavailable") {
			t.Errorf("%s: a 503 answered %q / %q", c.Kind, c.ProblemCode, c.IntakeCode)
		}
		if c.ProblemCode == "" || c.IntakeCode == "" || c.Detail == "" || c.Status == 0 {
			t.Errorf("%s: incomplete row %+v", c.Kind, c)
		}
	}
}

func TestClassify(t *testing.T) {
	tests := []struct {
		name     string
		err      error
		wantKind string
		refused  bool
	}{
		{"nil", nil, "", false},
		{"validation", fmt.Errorf("decode: %w", domain.Invalid("id", "bad")), "invalid", true},
		{"unknown skus", &domain.UnknownSKUsError{SKUs: []string{"A"}}, "unknown_skus", true},
		{"no warehouse", fmt.Errorf("choose: %w", domain.ErrNoWarehouse), "no_warehouse", true},
		{"signature before credentials", fmt.Errorf("%w: %w", ports.ErrInvalidSignature, ports.ErrInvalidCredentials), "invalid_signature", false},
		{"scope", &ports.InsufficientScopeError{Missing: []domain.Scope{domain.ScopeShipments}}, "insufficient_scope", false},
		{"conflict", fmt.Errorf("insert: %w", domain.ErrConflict), "conflict", false},
		{"client gone before anything else", fmt.Errorf("%w: %w", domain.ErrUnavailable, context.Canceled), "client_gone", false},
		{"timeout before unavailable", fmt.Errorf("%w: %w", domain.ErrUnavailable, context.DeadlineExceeded), "timeout", false},
		{"lock not granted", fmt.Errorf("reserve: %w", domain.ErrTimeout), "timeout", false},
		{"database away", fmt.Errorf("dial: %w", domain.ErrUnavailable), "unavailable", false},
		{"shed", ErrOverloaded, "shed", false},
		{"bug", errors.New("nil map"), "internal", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Classify(tt.err)
			if c.Kind != tt.wantKind || c.Refused() != tt.refused {
				t.Errorf("Classify(%v) = %+v, want kind %q, refused %v", tt.err, c, tt.wantKind, tt.refused)
			}
		})
	}
}
