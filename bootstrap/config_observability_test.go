package bootstrap_test

import (
	"strings"
	"testing"
)

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
