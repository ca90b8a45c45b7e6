package identity

import (
	"sync"
	"time"
)

// shortCache remembers values for a short time: the order intake's hot path
// would otherwise pay a database round trip per delivery for records that
// rarely change (an API key, a webhook secret). A change of the record takes
// effect within the cache's TTL. It is bounded — a cache, not a copy of the
// table: past maxCached entries it starts afresh.
type shortCache[K comparable, V any] struct {
	ttl time.Duration

	mu      sync.Mutex
	entries map[K]shortEntry[V]
}

type shortEntry[V any] struct {
	value   V
	expires time.Time
}

// maxCached bounds every cache.
const maxCached = 10_000

func newShortCache[K comparable, V any](ttl time.Duration) *shortCache[K, V] {
	return &shortCache[K, V]{ttl: ttl, entries: map[K]shortEntry[V]{}}
}

// get returns the value of k while it is fresh at now.
func (c *shortCache[K, V]) get(k K, now time.Time) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[k]
	if !ok || !now.Before(e.expires) {
		var zero V
		return zero, false
	}
	return e.value, true
}

// put remembers v for k from now on, for the cache's TTL.
func (c *shortCache[K, V]) put(k K, v V, now time.Time) {
	c.putUntil(k, v, now.Add(c.ttl))
}

// putUntil remembers v for k until expires, whatever the cache's TTL.
func (c *shortCache[K, V]) putUntil(k K, v V, expires time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) >= maxCached {
		clear(c.entries)
	}
	c.entries[k] = shortEntry[V]{value: v, expires: expires}
}
