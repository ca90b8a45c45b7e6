package telemetry

import (
	"github.com/prometheus/client_golang/prometheus"
)

// The label values of the admission's decisions
// (fulfillment_admission_decisions_total{decision}); the admission of the
// HTTP adapter documents each.
var AdmissionDecisions = []string{"admitted", "queued", "shed_at_once", "shed_waited"}

// RateLimitScopes are the label values of
// fulfillment_rate_limited_total{scope}: an organization's bucket or a
// warehouse's.
var RateLimitScopes = []string{"org", "warehouse"}

// FairUse holds the families of the admission and the rate limits.
type FairUse struct {
	// AdmissionDecisions counts the admission's decisions by decision.
	AdmissionDecisions *prometheus.CounterVec
	// RateLimited counts requests refused with 429, by scope.
	RateLimited *prometheus.CounterVec
	// RateLimitedOrganizations counts the requests of each organization
	// refused with 429, for the dashboard's "refused most". Its label
	// values are organization IDs of verified access tokens, so there are
	// as many series as customers that have been refused, not as many as
	// clients can invent.
	RateLimitedOrganizations *prometheus.CounterVec
	// RateLimitBackendErrors counts requests served without a limit
	// because the buckets' store (Redis) could not be asked.
	RateLimitBackendErrors prometheus.Counter
}

func newFairUse(reg prometheus.Registerer) FairUse {
	f := FairUse{
		AdmissionDecisions: newCounterVec("fulfillment_admission_decisions_total",
			"Decisions of the admission control of /v0 requests: admitted (a slot was free), queued (admitted after a wait), shed_at_once (refused at once, the queue stands), shed_waited (refused when the wait budget ran out).",
			"decision"),
		RateLimited: newCounterVec("fulfillment_rate_limited_total",
			"Requests refused with 429 by the rate limits, by scope (org, warehouse).",
			"scope"),
		RateLimitedOrganizations: newCounterVec("fulfillment_rate_limited_organizations_total",
			"Requests refused with 429 by an organization's rate limit, by organization.",
			"organization"),
		RateLimitBackendErrors: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "fulfillment_rate_limit_backend_errors_total",
			Help: "Requests served without a rate limit because the buckets' store (Redis) could not be asked (fail open).",
		}),
	}
	reg.MustRegister(f.AdmissionDecisions, f.RateLimited, f.RateLimitedOrganizations, f.RateLimitBackendErrors)
	zeroSeries(f.AdmissionDecisions, AdmissionDecisions)
	zeroSeries(f.RateLimited, RateLimitScopes)
	return f
}
