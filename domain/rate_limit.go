package domain

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// RateLimit is a fair-use limit of the API: Count requests per Period on
// average, with bursts of up to Burst requests at once (the generic cell
// rate algorithm's terms: one request every Period/Count, Burst of them
// ahead of that schedule). The zero value is no limit set.
type RateLimit struct {
	count  int
	period time.Duration
	burst  int
}

// MaxRateLimitCount bounds a limit's count and burst: beyond a million
// requests per period a limit limits nothing.
const MaxRateLimitCount = 1_000_000

// periods are the units a limit may be written in.
var periods = map[string]time.Duration{"s": time.Second, "m": time.Minute, "h": time.Hour}

// ParseRateLimit reads a limit written "COUNT/UNIT" (UNIT s, m or h; for
// example "20/s" or "1200/m"). A burst of 0 is the default: twice the
// count (20/s bursts to 40).
func ParseRateLimit(s string, burst int) (RateLimit, error) {
	n, unit, ok := strings.Cut(strings.TrimSpace(s), "/")
	period, known := periods[unit]
	count, err := strconv.Atoi(n)
	if !ok || !known || err != nil || count < 1 || count > MaxRateLimitCount {
		return RateLimit{}, Invalid("rateLimit", "%q is not COUNT/UNIT with a count of 1 to %d and a unit s, m or h (for example 20/s)", s, MaxRateLimitCount)
	}
	if burst == 0 {
		burst = min(2*count, MaxRateLimitCount)
	}
	if burst < 1 || burst > MaxRateLimitCount {
		return RateLimit{}, Invalid("burst", "%d is not between 1 and %d", burst, MaxRateLimitCount)
	}
	return RateLimit{count: count, period: period, burst: burst}, nil
}

// Count is how many requests a period allows on average.
func (l RateLimit) Count() int { return l.count }

// Period is the period of Count.
func (l RateLimit) Period() time.Duration { return l.period }

// Burst is how many requests may come at once.
func (l RateLimit) Burst() int { return l.burst }

// IsZero reports whether no limit is set.
func (l RateLimit) IsZero() bool { return l.count == 0 }

// Rate is written as ParseRateLimit reads it, without the burst.
func (l RateLimit) Rate() string {
	for unit, p := range periods {
		if p == l.period {
			return fmt.Sprintf("%d/%s", l.count, unit)
		}
	}
	return ""
}

// String is the rate and the burst, for logs and the CLI.
func (l RateLimit) String() string {
	return fmt.Sprintf("%s (burst %d)", l.Rate(), l.burst)
}
