package bootstrap_test

// The sections of Config, one after the other (billing, events, fair use,
// migrations, tracing): their defaults, their settings and the values that
// stop start-up.

import (
	"strings"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/adapters/broker"
	"github.com/acme3pl/fulfillment/adapters/postgres"
)

func TestConfigBilling(t *testing.T) {
	c := mustLoad(t, map[string]string{})
	b := c.Billing()
	if b.Calendar.Location().String() != "UTC" || b.Grace != 24*time.Hour || b.Terms != 720*time.Hour ||
		b.CollectionsAfter != 720*time.Hour || c.BillingInterval != 15*time.Minute {
		t.Errorf("defaults: %+v, interval %v", b, c.BillingInterval)
	}
	c = mustLoad(t, map[string]string{"BILLING_TIMEZONE": "America/New_York", "BILLING_GRACE": "0s",
		"BILLING_TERMS": "87600h", "BILLING_COLLECTIONS_AFTER": "36h", "BILLING_INTERVAL": "1s"})
	if b := c.Billing(); b.Calendar.Location().String() != "America/New_York" || b.Grace != 0 || b.Terms != 87600*time.Hour ||
		b.CollectionsAfter != 36*time.Hour || c.BillingInterval != time.Second {
		t.Errorf("set: %+v, interval %v", b, c.BillingInterval)
	}
}

func TestConfigBillingInvalid(t *testing.T) {
	tests := map[string]string{
		"BILLING_TIMEZONE=Mars/Olympus":     "BILLING_TIMEZONE",
		"BILLING_TIMEZONE=":                 "BILLING_TIMEZONE",
		"BILLING_TIMEZONE=Local":            "BILLING_TIMEZONE",
		"BILLING_GRACE=-1s":                 "BILLING_GRACE",
		"BILLING_GRACE=87601h":              "BILLING_GRACE",
		"BILLING_TERMS=soon":                "BILLING_TERMS",
		"BILLING_COLLECTIONS_AFTER=100000h": "BILLING_COLLECTIONS_AFTER",
		"BILLING_INTERVAL=999ms":            "BILLING_INTERVAL",
		"BILLING_INTERVAL=25h":              "BILLING_INTERVAL",
	}
	for kv, want := range tests {
		k, v, _ := strings.Cut(kv, "=")
		_, err := load(t, map[string]string{k: v})
		if err == nil || !strings.HasPrefix(err.Error(), want+":") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %v, want one line starting %s:", kv, err, want)
		}
	}
}

func TestEventsConfig(t *testing.T) {
	c := mustLoad(t, map[string]string{})
	if c.EventsOn() || c.EventsStream != "FULFILLMENT" {
		t.Fatalf("defaults: on %v, stream %q; want off and FULFILLMENT", c.EventsOn(), c.EventsStream)
	}
	c = mustLoad(t, map[string]string{"EVENTS_NATS_URL": "nats://a:4222, nats://b:4222", "EVENTS_STREAM": "FULFILLMENT_EU",
		"EVENTS_NATS_USER": "u", "EVENTS_NATS_PASSWORD": "p", "ENVIRONMENT": "production"})
	b := c.Broker()
	if !c.EventsOn() || b.URL != "nats://a:4222, nats://b:4222" || b.Stream != "FULFILLMENT_EU" || b.User != "u" || b.Password != "p" ||
		b.Name != "fulfillment production" {
		t.Fatalf("broker config %+v", b)
	}
	if _, err := load(t, map[string]string{"EVENTS_NATS_TOKEN": "t"}); err != nil {
		t.Errorf("credentials without a URL (events off): %v, want them ignored", err)
	}
}

func TestEventsStreamSettings(t *testing.T) {
	c := mustLoad(t, map[string]string{"ENVIRONMENT": "production"})
	want := broker.Stream{Name: "FULFILLMENT", Replicas: 1, MaxAge: 168 * time.Hour, DuplicateWindow: 10 * time.Minute,
		Publishes: "fulfillment.production.>"}
	if got := c.EventsStreamSettings(); got != want {
		t.Fatalf("defaults %+v, want %+v", got, want)
	}
	c = mustLoad(t, map[string]string{"EVENTS_NATS_URL": "nats://a:4222,nats://b:4222,nats://c:4222", "EVENTS_STREAM_REPLICAS": "3",
		"EVENTS_STREAM_MAX_AGE": "720h", "EVENTS_DUPLICATE_WINDOW": "1h"})
	if s := c.EventsStreamSettings(); s.Replicas != 3 || s.MaxAge != 720*time.Hour || s.DuplicateWindow != time.Hour {
		t.Fatalf("settings %+v", s)
	}
}

func TestEventsConfigRefused(t *testing.T) {
	checkRefused(t, map[string]refusal{
		"a URL of another scheme":    {map[string]string{"EVENTS_NATS_URL": "http://nats:4222"}, "EVENTS_NATS_URL"},
		"a URL without a host":       {map[string]string{"EVENTS_NATS_URL": "nats://"}, "EVENTS_NATS_URL"},
		"one bad URL among several":  {map[string]string{"EVENTS_NATS_URL": "nats://a:4222,b:4222"}, "EVENTS_NATS_URL"},
		"a stream name with a dot":   {map[string]string{"EVENTS_STREAM": "FULFILL.MENT"}, "EVENTS_STREAM"},
		"a stream name with a space": {map[string]string{"EVENTS_STREAM": "A B"}, "EVENTS_STREAM"},
		"two kinds of credentials": {map[string]string{"EVENTS_NATS_URL": "nats://a:4222", "EVENTS_NATS_USER": "u",
			"EVENTS_NATS_TOKEN": "t"}, "one kind of credentials"},
		"a password without a user": {map[string]string{"EVENTS_NATS_URL": "nats://a:4222", "EVENTS_NATS_PASSWORD": "p"},
			"EVENTS_NATS_PASSWORD"},
		"no replicas":             {map[string]string{"EVENTS_STREAM_REPLICAS": "0"}, "EVENTS_STREAM_REPLICAS"},
		"more replicas than NATS": {map[string]string{"EVENTS_STREAM_REPLICAS": "7"}, "EVENTS_STREAM_REPLICAS"},
		"replicas not a number":   {map[string]string{"EVENTS_STREAM_REPLICAS": "three"}, "EVENTS_STREAM_REPLICAS"},
		"no max age":              {map[string]string{"EVENTS_STREAM_MAX_AGE": "0s"}, "EVENTS_STREAM_MAX_AGE"},
		"a max age in days":       {map[string]string{"EVENTS_STREAM_MAX_AGE": "7d"}, "EVENTS_STREAM_MAX_AGE"},
		"no duplicate window":     {map[string]string{"EVENTS_DUPLICATE_WINDOW": "0s"}, "EVENTS_DUPLICATE_WINDOW"},
		"a window past the max age": {map[string]string{"EVENTS_STREAM_MAX_AGE": "1h", "EVENTS_DUPLICATE_WINDOW": "2h"},
			"EVENTS_DUPLICATE_WINDOW"},
	})
}

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

// The migrator's waits for locks: defaults, settings, and values that stop
// start-up.
func TestMigrationConfig(t *testing.T) {
	c := mustLoad(t, map[string]string{})
	want := postgres.DefaultMigrateOptions()
	if got := c.Migration(); got != want {
		t.Fatalf("defaults: %+v, want %+v", got, want)
	}
	c = mustLoad(t, map[string]string{"MIGRATION_LOCK_TIMEOUT": "250ms", "MIGRATION_LOCK_RETRIES": "0"})
	want = postgres.MigrateOptions{LockTimeout: 250 * time.Millisecond, RetryBackoff: postgres.DefaultMigrationRetryBackoff}
	if got := c.Migration(); got != want {
		t.Fatalf("set: %+v, want %+v", got, want)
	}
	checkRefused(t, map[string]refusal{
		"a timeout of nothing":     {map[string]string{"MIGRATION_LOCK_TIMEOUT": "0s"}, "MIGRATION_LOCK_TIMEOUT"},
		"a timeout too long":       {map[string]string{"MIGRATION_LOCK_TIMEOUT": "5m"}, "MIGRATION_LOCK_TIMEOUT"},
		"a timeout not a duration": {map[string]string{"MIGRATION_LOCK_TIMEOUT": "soon"}, "MIGRATION_LOCK_TIMEOUT"},
		"negative retries":         {map[string]string{"MIGRATION_LOCK_RETRIES": "-1"}, "MIGRATION_LOCK_RETRIES"},
		"too many retries":         {map[string]string{"MIGRATION_LOCK_RETRIES": "100"}, "MIGRATION_LOCK_RETRIES"},
		"retries not an integer":   {map[string]string{"MIGRATION_LOCK_RETRIES": "a few"}, "MIGRATION_LOCK_RETRIES"},
	})
}

func TestConfigTracing(t *testing.T) {
	c := mustLoad(t, map[string]string{
		"ENVIRONMENT": "production", "OTEL_SERVICE_NAME": "fulfillment-eu",
		"OTEL_TRACES_SAMPLER": "parentbased_traceidratio", "OTEL_TRACES_SAMPLER_ARG": "0.1",
	})
	tc := c.Tracing()
	if tc.Environment != "production" || tc.ServiceName != "fulfillment-eu" || tc.Sampler != "parentbased_traceidratio" ||
		tc.SamplerArg != "0.1" || tc.ServiceVersion == "" {
		t.Errorf("Tracing() = %+v", tc)
	}
	if c, _ := load(t, map[string]string{}); c.Tracing().ServiceName != "fulfillment" || c.Tracing().Environment != "sandbox" {
		t.Errorf("defaults: Tracing() = %+v", c.Tracing())
	}
}

func TestConfigRefusesBadSampler(t *testing.T) {
	for env, name := range map[string]map[string]string{
		"OTEL_TRACES_SAMPLER":     {"OTEL_TRACES_SAMPLER": "sometimes"},
		"OTEL_TRACES_SAMPLER_ARG": {"OTEL_TRACES_SAMPLER": "traceidratio", "OTEL_TRACES_SAMPLER_ARG": "2"},
	} {
		if _, err := load(t, name); err == nil || !strings.HasPrefix(err.Error(), env+":") {
			t.Errorf("Load(%v) = %v, want an error naming %s", name, err, env)
		}
	}
}
