package httpapi

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/acme3pl/fulfillment/adapters/ratelimit"
	"github.com/acme3pl/fulfillment/domain"
)

// RateLimiter decides whether a request of an organization (scope org) or
// a warehouse (scope warehouse) is within its limit (adapters/ratelimit).
type RateLimiter interface {
	Allow(ctx context.Context, scope, id string) ratelimit.Decision
}

// limited applies the rate limit of the request's principal before next:
// its organization's bucket, or its warehouse's. Every answer carries the
// IETF RateLimit-Policy and RateLimit headers
// (draft-ietf-httpapi-ratelimit-headers); a request over the limit is
// answered 429 rate_limited with Retry-After, and nothing is done. A nil
// limiter limits nothing (unit tests of one handler).
func limited(l RateLimiter, scope string, next http.Handler) http.Handler {
	if l == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := PrincipalFrom(r.Context())
		id := p.OrganizationID
		if scope == ratelimit.ScopeWarehouse {
			id = p.WarehouseID
		}
		d := l.Allow(r.Context(), scope, id)
		setRateLimitHeaders(w.Header(), d)
		if !d.Allowed {
			w.Header().Set("Retry-After", strconv.Itoa(retryAfterSeconds(d.RetryAfter)))
			WriteProblem(w, r, NewProblem(http.StatusTooManyRequests, "rate_limited",
				fmt.Sprintf("over the %s limit of %s per %s with bursts of %d; retry after Retry-After seconds",
					scope, strconv.Itoa(d.Limit.Count()), periodName(d.Limit), d.Limit.Burst())))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// setRateLimitHeaders writes the policy (q: the burst, the requests a
// client may make at once; w: the seconds in which the rate refills it)
// and, when the bucket was asked, what is left (r: requests that may be
// made now; t: seconds until the next one may be made, 0 while r > 0).
// When the buckets' store could not be asked (fail open), RateLimit is
// left out: nothing is known of the bucket.
func setRateLimitHeaders(h http.Header, d ratelimit.Decision) {
	h.Set("RateLimit-Policy", fmt.Sprintf("%q;q=%d;w=%d", d.Scope, d.Limit.Burst(), policyWindow(d.Limit)))
	if d.Known {
		t := 0
		if d.Remaining == 0 {
			t = retryAfterSeconds(d.RetryAfter)
		}
		h.Set("RateLimit", fmt.Sprintf("%q;r=%d;t=%d", d.Scope, d.Remaining, t))
	}
}

// policyWindow is the whole seconds (at least 1) in which the limit's rate
// refills its burst: 2 for 20/s with bursts of 40.
func policyWindow(l domain.RateLimit) int {
	perSecond := float64(l.Count()) / l.Period().Seconds()
	return max(int(math.Ceil(float64(l.Burst())/perSecond)), 1)
}

// retryAfterSeconds rounds a wait up to whole seconds, at least 1.
func retryAfterSeconds(d time.Duration) int {
	return max(int(math.Ceil(d.Seconds())), 1)
}

func periodName(l domain.RateLimit) string {
	switch l.Period() {
	case time.Minute:
		return "minute"
	case time.Hour:
		return "hour"
	default:
		return "second"
	}
}
