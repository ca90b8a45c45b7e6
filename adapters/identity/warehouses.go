package identity

import (
	"context"
	"fmt"
	"time"

	"github.com/acme3pl/fulfillment/ports"
	accessports "github.com/acme3pl/fulfillment/ports/access"
)

// warehouseCacheTTL bounds how long a deactivated warehouse's tokens still
// work: a second, as for a revoked API key.
const warehouseCacheTTL = time.Second

// ActiveWarehouses trusts a warehouse's token only while its warehouse exists
// and is active (checked at most once a second per warehouse); an
// organization's token passes through unchanged.
type ActiveWarehouses struct {
	tokens accessports.TokenVerifier
	active func(ctx context.Context, warehouseID string) (bool, error)
	now    func() time.Time
	cache  *shortCache[string, bool]
}

var _ accessports.TokenVerifier = (*ActiveWarehouses)(nil)

// NewActiveWarehouses wraps tokens with the check of the warehouse a token
// names.
func NewActiveWarehouses(tokens accessports.TokenVerifier, warehouses ports.WarehouseRepository) *ActiveWarehouses {
	return &ActiveWarehouses{tokens: tokens, active: warehouses.IsActive, now: time.Now,
		cache: newShortCache[string, bool](warehouseCacheTTL)}
}

// VerifyAccessToken verifies the token, then its warehouse: unknown or
// inactive is accessports.ErrInvalidCredentials.
func (a *ActiveWarehouses) VerifyAccessToken(ctx context.Context, token string) (accessports.Principal, error) {
	p, err := a.tokens.VerifyAccessToken(ctx, token)
	if err != nil || p.WarehouseID == "" {
		return p, err
	}
	now := a.now()
	active, ok := a.cache.get(p.WarehouseID, now)
	if !ok {
		if active, err = a.active(ctx, p.WarehouseID); err != nil {
			return accessports.Principal{}, fmt.Errorf("check warehouse %s: %w", p.WarehouseID, err)
		}
		a.cache.put(p.WarehouseID, active, now)
	}
	if !active {
		return accessports.Principal{}, invalid("warehouse %q is unknown or inactive", truncate(p.WarehouseID, 64))
	}
	return p, nil
}
