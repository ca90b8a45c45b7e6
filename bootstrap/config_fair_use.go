package bootstrap

import (
	"errors"
	"fmt"
	"time"

	"github.com/acme3pl/fulfillment/adapters/ratelimit"
	"github.com/acme3pl/fulfillment/domain"
)

// validateFairUse checks the settings of the admission queue and the rate
// limits, and reads the default limit.
func (c *Config) validateFairUse(environ map[string]string) error {
	// The default target fits any deadline: it is at most half of it.
	if _, set := environ["ADMISSION_TARGET"]; !set {
		c.AdmissionTarget = min(c.AdmissionTarget, c.RequestTimeout/2)
	}
	if c.AdmissionTarget < time.Millisecond || c.AdmissionTarget > c.RequestTimeout/2 {
		return fmt.Errorf("ADMISSION_TARGET: must be a duration between 1ms and half of REQUEST_TIMEOUT (%s)", c.RequestTimeout/2)
	}
	if c.AdmissionInterval < 10*time.Millisecond || c.AdmissionInterval > 10*time.Second {
		return errors.New("ADMISSION_INTERVAL: must be a duration between 10ms and 10s")
	}
	if c.AdmissionInterval <= c.AdmissionTarget {
		return fmt.Errorf("ADMISSION_INTERVAL: must be longer than ADMISSION_TARGET (%s)", c.AdmissionTarget)
	}
	if c.RateLimitBurst < 1 || c.RateLimitBurst > domain.MaxRateLimitCount {
		return fmt.Errorf("RATE_LIMIT_BURST: must be an integer between 1 and %d", domain.MaxRateLimitCount)
	}
	var err error
	if c.RateLimit, err = domain.ParseRateLimit(c.RateLimitRaw, c.RateLimitBurst); err != nil {
		return fmt.Errorf("RATE_LIMIT: %q is not COUNT/UNIT with a count of 1 to %d and a unit s, m or h (for example 20/s)",
			c.RateLimitRaw, domain.MaxRateLimitCount)
	}
	if c.RateLimitRedisURL != "" {
		if _, err := ratelimit.ParseRedisURL(c.RateLimitRedisURL); err != nil {
			// The URL is not repeated: it may hold a password.
			return fmt.Errorf("RATE_LIMIT_REDIS_URL: %w", err)
		}
	}
	return nil
}
