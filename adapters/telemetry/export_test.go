package telemetry

import (
	"time"
)

// ExpireForTest makes the next scrape read the counter again.
func (c *FailedOrdersCollector) ExpireForTest() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.at = time.Time{}
}
