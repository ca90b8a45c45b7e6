package application

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/shipping"
	"github.com/acme3pl/fulfillment/domain/warehouse"
	accessports "github.com/acme3pl/fulfillment/ports/access"
)

func TestKindOf(t *testing.T) {
	tests := []struct {
		name     string
		err      error
		want     domain.Kind
		refused  bool
		fault    bool
		wantCode string
	}{
		{"nil", nil, "", false, false, ""},
		{"validation", fmt.Errorf("decode: %w", domain.Invalid("id", "bad")), domain.KindInvalid, true, false, "invalid_payload"},
		{"unknown skus", &domain.UnknownSKUsError{SKUs: []string{"A"}}, domain.KindUnknownSKUs, true, false, "unknown_skus"},
		{"no warehouse", fmt.Errorf("choose: %w", domain.ErrNoWarehouse), domain.KindNoWarehouse, true, false, "no_warehouse"},
		{"signature before credentials", fmt.Errorf("%w: %w", accessports.ErrInvalidSignature, accessports.ErrInvalidCredentials),
			domain.KindInvalidSignature, false, false, "invalid_signature"},
		{"scope", &accessports.InsufficientScopeError{Missing: []domain.Scope{domain.ScopeShipments}}, domain.KindInsufficientScope, false, false, "insufficient_scope"},
		{"conflict", fmt.Errorf("insert: %w", domain.ErrConflict), domain.KindConflict, false, false, "conflict"},
		{"reference conflict", fmt.Errorf("receipt: %w", warehouse.ErrReferenceConflict), domain.KindReferenceConflict, false, false, "reference_conflict"},
		{"period closed", fmt.Errorf("receipt: %w", warehouse.ErrPeriodClosed), domain.KindPeriodClosed, false, false, "period_closed"},
		{"unknown service", fmt.Errorf("service: %w", warehouse.ErrUnknownService), domain.KindUnknownService, false, false, "unknown_service"},
		{"on hand past its bound, before invalid", fmt.Errorf("receipt: %w", warehouse.ReceiptReport{}.OnHandPast(&warehouse.OnHandBoundError{})),
			domain.KindOnHandBound, false, false, "on_hand_bound"},
		{"client gone before anything else", fmt.Errorf("%w: %w", domain.ErrUnavailable, context.Canceled),
			domain.KindClientGone, false, false, "client_closed_request"},
		{"timeout before unavailable", fmt.Errorf("%w: %w", domain.ErrUnavailable, context.DeadlineExceeded),
			domain.KindTimeout, false, true, "unavailable"},
		{"lock not granted", fmt.Errorf("reserve: %w", domain.ErrTimeout), domain.KindTimeout, false, true, "unavailable"},
		{"database away", fmt.Errorf("dial: %w", domain.ErrUnavailable), domain.KindUnavailable, false, true, "unavailable"},
		{"shed", ErrOverloaded, domain.KindShed, false, true, "unavailable"},
		{"too large", ErrPayloadTooLarge, domain.KindTooLarge, false, false, "payload_too_large"},
		{"on hand past its bound, alone", fmt.Errorf("fixture: %w", &warehouse.OnHandBoundError{}), domain.KindOnHandBound, false, false, "on_hand_bound"},
		{"the first kind in the chain", fmt.Errorf("%w: %w", domain.ErrNotFound, domain.Invalid("id", "bad")), domain.KindNotFound, false, false, "not_found"},
		{"a fault anywhere in the chain", fmt.Errorf("%w: %w", domain.ErrNotFound, domain.ErrUnavailable), domain.KindUnavailable, false, true,
			"unavailable"},
		{"client gone, the context's error last", fmt.Errorf("%w: %w", domain.ErrTimeout, context.Canceled), domain.KindClientGone, false, false,
			"client_closed_request"},
		{"deadline of a socket", fmt.Errorf("read: %w", os.ErrDeadlineExceeded), domain.KindTimeout, false, true, "unavailable"},
		{"on hand short", fmt.Errorf("ship: %w", &shipping.OnHandShortageError{Kind: shipping.KindProduct}), domain.KindOnHandShort, false, false,
			"insufficient_stock"},
		{"the ledger's negative stock", fmt.Errorf("move: %w", shipping.ErrNegativeStock), domain.KindOnHandShort, false, false,
			"insufficient_stock"},
		{"bug", errors.New("nil map"), domain.KindInternal, false, true, "internal"},
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
