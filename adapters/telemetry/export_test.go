package telemetry

// ExpireForTest makes the next scrape read the counter again.
func (c *FailedOrdersCollector) ExpireForTest() {
	c.expire()
}
