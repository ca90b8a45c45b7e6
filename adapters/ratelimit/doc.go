// Package ratelimit keeps the fair-use limits of the API (docs/rate-limits.md):
// one GCRA bucket per organization and per warehouse, in Redis when the
// buckets are shared by every replica, in memory otherwise, with an
// organization's own limit where one is set.
package ratelimit
