package helm_test

import (
	"testing"
)

// The rate limits' settings reach the server's container; the Redis URL
// (which holds a password) only from a Secret, and only when one is named.
func TestRateLimitSettings(t *testing.T) {
	env := serverEnv(t, render(t))
	if env["RATE_LIMIT"].Value != "20/s" || env["RATE_LIMIT_BURST"].Value != "40" || env["ADMISSION_TARGET"].Value != "100ms" ||
		env["ADMISSION_INTERVAL"].Value != "1s" {
		t.Errorf("default env: %v", env)
	}
	if _, ok := env["RATE_LIMIT_REDIS_URL"]; ok {
		t.Error("default values set RATE_LIMIT_REDIS_URL: buckets are per pod unless a Secret is named")
	}
	env = serverEnv(t, render(t, "-f", allOn))
	ref := env["RATE_LIMIT_REDIS_URL"].ValueFrom
	if ref == nil || ref.SecretKeyRef == nil || ref.SecretKeyRef.Name != "redis-credentials" || ref.SecretKeyRef.Key != "url" ||
		env["RATE_LIMIT_REDIS_URL"].Value != "" {
		t.Errorf("RATE_LIMIT_REDIS_URL: %+v, want the key url of Secret redis-credentials", env["RATE_LIMIT_REDIS_URL"])
	}
	if env["RATE_LIMIT"].Value != "600/m" || env["RATE_LIMIT_BURST"].Value != "100" {
		t.Errorf("env: %v", env)
	}
}
