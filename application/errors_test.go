package application

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/shipping"
	"github.com/acme3pl/fulfillment/domain/warehouse"
	accessports "github.com/acme3pl/fulfillment/ports/access"
)

// Every kind has one row, and no kind is both a fault and a refusal.
func TestKindsAreConsistent(t *testing.T) {
	seen := map[Kind]bool{}
	for _, row := range kinds {
		if seen[row.kind] {
			t.Errorf("kind %q has two rows", row.kind)
		}
		seen[row.kind] = true
		if row.kind.Fault() && row.kind.Refused() {
			t.Errorf("%s is both a fault and a refusal", row.kind)
		}
		if row.kind.Code() == "" {
			t.Errorf("%s has no code", row.kind)
		}
	}
}

func TestKindOf(t *testing.T) {
	tests := []struct {
		name     string
		err      error
		want     Kind
		refused  bool
		fault    bool
		wantCode string
	}{
		{"nil", nil, "", false, false, ""},
		{"validation", fmt.Errorf("decode: %w", domain.Invalid("id", "bad")), KindInvalid, true, false, "invalid_payload"},
		{"unknown skus", &domain.UnknownSKUsError{SKUs: []string{"A"}}, KindUnknownSKUs, true, false, "unknown_skus"},
		{"no warehouse", fmt.Errorf("choose: %w", domain.ErrNoWarehouse), KindNoWarehouse, true, false, "no_warehouse"},
		{"signature before credentials", fmt.Errorf("%w: %w", accessports.ErrInvalidSignature, accessports.ErrInvalidCredentials),
			KindInvalidSignature, false, false, "invalid_signature"},
		{"scope", &accessports.InsufficientScopeError{Missing: []domain.Scope{domain.ScopeShipments}}, KindInsufficientScope, false, false, "insufficient_scope"},
		{"conflict", fmt.Errorf("insert: %w", domain.ErrConflict), KindConflict, false, false, "conflict"},
		{"reference conflict", fmt.Errorf("receipt: %w", warehouse.ErrReferenceConflict), KindReferenceConflict, false, false, "reference_conflict"},
		{"period closed", fmt.Errorf("receipt: %w", warehouse.ErrPeriodClosed), KindPeriodClosed, false, false, "period_closed"},
		{"unknown service", fmt.Errorf("service: %w", warehouse.ErrUnknownService), KindUnknownService, false, false, "unknown_service"},
		{"on hand past its bound, before invalid", fmt.Errorf("receipt: %w", warehouse.ReceiptReport{}.OnHandPast(&warehouse.OnHandBoundError{})),
			KindOnHandBound, false, false, "on_hand_bound"},
		{"client gone before anything else", fmt.Errorf("%w: %w", domain.ErrUnavailable, context.Canceled),
			KindClientGone, false, false, "client_closed_request"},
		{"timeout before unavailable", fmt.Errorf("%w: %w", domain.ErrUnavailable, context.DeadlineExceeded),
			KindTimeout, false, true, "unavailable"},
		{"lock not granted", fmt.Errorf("reserve: %w", domain.ErrTimeout), KindTimeout, false, true, "unavailable"},
		{"database away", fmt.Errorf("dial: %w", domain.ErrUnavailable), KindUnavailable, false, true, "unavailable"},
		{"shed", ErrOverloaded, KindShed, false, true, "unavailable"},
		{"too large", ErrPayloadTooLarge, KindTooLarge, false, false, "payload_too_large"},
		{"on hand short", fmt.Errorf("ship: %w", &shipping.OnHandShortageError{Kind: shipping.KindProduct}), KindOnHandShort, false, false,
			"insufficient_stock"},
		{"the ledger's negative stock", fmt.Errorf("move: %w", shipping.ErrNegativeStock), KindOnHandShort, false, false,
			"insufficient_stock"},
		{"bug", errors.New("nil map"), KindInternal, false, true, "internal"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := KindOf(tt.err)
			if k != tt.want || k.Refused() != tt.refused || k.Fault() != tt.fault || (tt.err != nil && k.Code() != tt.wantCode) {
				t.Errorf("KindOf(%v) = %q (refused %v, fault %v, code %q), want %q, %v, %v, %q",
					tt.err, k, k.Refused(), k.Fault(), k.Code(), tt.want, tt.refused, tt.fault, tt.wantCode)
			}
		})
	}
}
