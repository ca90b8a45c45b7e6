package ratelimit

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/acme3pl/fulfillment/adapters/telemetry"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/ports"
)

// The scopes of a bucket: the names in the RateLimit and RateLimit-Policy
// headers and the values of fulfillment_rate_limited_total{scope}.
const (
	ScopeOrg       = "org"
	ScopeWarehouse = "warehouse"
)

// Decision is the limiter's answer for one request.
type Decision struct {
	// Allowed: the request may be served.
	Allowed bool
	// Known: the bucket was asked. False when its store could not be
	// (the request is served: fail open) — nothing is known of Remaining.
	Known bool
	// Scope and Limit name the bucket's policy.
	Scope string
	Limit domain.RateLimit
	// Remaining is how many more requests the bucket allows at once.
	Remaining int
	// RetryAfter is how long until a request is allowed again (0 when
	// Remaining > 0).
	RetryAfter time.Duration
}

// store keeps buckets: allow takes one request from key's bucket under
// limit if it allows one.
type store interface {
	allow(ctx context.Context, key string, limit domain.RateLimit) (bucketState, error)
}

// bucketState is what a store tells of a bucket after a request.
type bucketState struct {
	allowed    bool
	remaining  int
	retryAfter time.Duration // until the next request is allowed; 0 when remaining > 0
}

// Option sets a limiter's optional dependency.
type Option func(*settings)

type settings struct{ clock ports.Clock }

// WithClock gives the limiter the service's clock (the buckets' time and
// the spacing of warnings); the default is the system's.
func WithClock(c ports.Clock) Option { return func(s *settings) { s.clock = c } }

func options(opts []Option) settings {
	s := settings{clock: systemClock{}}
	for _, o := range opts {
		o(&s)
	}
	return s
}

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

// warnEvery spaces the warnings of a store that cannot be asked.
const warnEvery = time.Minute

// Limiter decides whether a request of an organization or a warehouse is
// within its limit. Organizations may have limits of their own (SetLimits);
// every other bucket has the default.
type Limiter struct {
	def      domain.RateLimit
	store    store
	limits   atomic.Pointer[map[string]domain.RateLimit] // organization ID → its own limit
	clock    ports.Clock
	metrics  telemetry.FairUse
	log      *slog.Logger
	lastWarn atomic.Int64 // unix nanoseconds of the last warning of a store error
}

func newLimiter(def domain.RateLimit, s store, clock ports.Clock, m telemetry.FairUse, log *slog.Logger) *Limiter {
	l := &Limiter{def: def, store: s, clock: clock, metrics: m, log: log}
	l.limits.Store(&map[string]domain.RateLimit{})
	return l
}

// Default is the limit of every bucket without one of its own.
func (l *Limiter) Default() domain.RateLimit { return l.def }

// SetLimits replaces the organizations' own limits (organization ID → its
// limit); organizations not in it have the default.
func (l *Limiter) SetLimits(limits map[string]domain.RateLimit) {
	l.limits.Store(&limits)
}

// LimitOf is the limit of a bucket.
func (l *Limiter) LimitOf(scope, id string) domain.RateLimit {
	if scope == ScopeOrg {
		if own, ok := (*l.limits.Load())[id]; ok {
			return own
		}
	}
	return l.def
}

// Allow takes one request from the bucket of the organization (scope org)
// or the warehouse (scope warehouse) id. When the store cannot be asked,
// the request is allowed (fail open), counted, and a warning is logged at
// most once a minute.
func (l *Limiter) Allow(ctx context.Context, scope, id string) Decision {
	limit := l.LimitOf(scope, id)
	d := Decision{Scope: scope, Limit: limit}
	st, err := l.store.allow(ctx, scope+":"+id, limit)
	if err != nil {
		l.metrics.RateLimitBackendErrors.Inc()
		l.warn(ctx, err)
		d.Allowed = true
		return d
	}
	d.Known, d.Allowed, d.Remaining, d.RetryAfter = true, st.allowed, st.remaining, st.retryAfter
	if !d.Allowed {
		l.metrics.RateLimited.WithLabelValues(scope).Inc()
		if scope == ScopeOrg {
			l.metrics.RateLimitedOrganizations.WithLabelValues(id).Inc()
		}
	}
	return d
}

// warn logs a store error unless one was logged within warnEvery. The
// error's text is the client's, which names the address but never the
// password of the store.
func (l *Limiter) warn(ctx context.Context, err error) {
	now := l.clock.Now().UnixNano()
	last := l.lastWarn.Load()
	if last != 0 && now-last < int64(warnEvery) || !l.lastWarn.CompareAndSwap(last, now) {
		return
	}
	l.log.WarnContext(ctx, "rate limits not applied: the buckets' store cannot be asked; requests are served without limits",
		slog.String("error", err.Error()))
}
