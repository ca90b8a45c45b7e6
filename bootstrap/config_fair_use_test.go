package bootstrap_test

import (
	"strings"
	"testing"
	"time"
)

func TestFairUseConfig(t *testing.T) {
	c := mustLoad(t, map[string]string{})
	if c.AdmissionTarget != 100*time.Millisecond || c.AdmissionInterval != time.Second ||
		c.RateLimit.Rate() != "20/s" || c.RateLimit.Burst() != 40 || c.RateLimitRedisURL != "" {
		t.Fatalf("defaults: target %s interval %s limit %v redis %q", c.AdmissionTarget, c.AdmissionInterval, c.RateLimit, c.RateLimitRedisURL)
	}
	c = mustLoad(t, map[string]string{"ADMISSION_TARGET": "20ms", "ADMISSION_INTERVAL": "1s", "RATE_LIMIT": "600/m",
		"RATE_LIMIT_BURST": "5", "RATE_LIMIT_REDIS_URL": "redis://:secret@redis:6379/2"})
	if c.AdmissionTarget != 20*time.Millisecond || c.AdmissionInterval != time.Second || c.RateLimit.Count() != 600 ||
		c.RateLimit.Period() != time.Minute || c.RateLimit.Burst() != 5 {
		t.Fatalf("config %+v", c)
	}
}

func TestFairUseConfigDefaultTargetFitsAShortDeadline(t *testing.T) {
	c := mustLoad(t, map[string]string{"REQUEST_TIMEOUT": "100ms"})
	if c.AdmissionTarget != 50*time.Millisecond {
		t.Errorf("the default target under a 100ms deadline: %s, want 50ms (half the deadline)", c.AdmissionTarget)
	}
}

func TestFairUseConfigRefused(t *testing.T) {
	checkRefused(t, map[string]refusal{
		"a target of 0":                  {map[string]string{"ADMISSION_TARGET": "0s"}, "ADMISSION_TARGET"},
		"a target beyond half the limit": {map[string]string{"ADMISSION_TARGET": "3s"}, "ADMISSION_TARGET"},
		"an interval too short":          {map[string]string{"ADMISSION_INTERVAL": "1ms"}, "ADMISSION_INTERVAL"},
		"an interval below the target":   {map[string]string{"ADMISSION_TARGET": "50ms", "ADMISSION_INTERVAL": "40ms"}, "ADMISSION_INTERVAL"},
		"a limit without a unit":         {map[string]string{"RATE_LIMIT": "20"}, "RATE_LIMIT:"},
		"a limit of 0":                   {map[string]string{"RATE_LIMIT": "0/s"}, "RATE_LIMIT:"},
		"a limit per day":                {map[string]string{"RATE_LIMIT": "20/d"}, "RATE_LIMIT:"},
		"a burst of 0":                   {map[string]string{"RATE_LIMIT_BURST": "0"}, "RATE_LIMIT_BURST"},
		"a burst that is not a number":   {map[string]string{"RATE_LIMIT_BURST": "many"}, "RATE_LIMIT_BURST"},
		"a Redis URL of another scheme":  {map[string]string{"RATE_LIMIT_REDIS_URL": "http://:hunter2@redis:6379"}, "RATE_LIMIT_REDIS_URL"},
	}, func(t *testing.T, err error) {
		if strings.Contains(err.Error(), "hunter2") {
			t.Errorf("the error repeats the password: %v", err)
		}
	})
}
