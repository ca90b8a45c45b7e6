package bootstrap

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/uptrace/bun"

	"github.com/acme3pl/fulfillment/adapters/telemetry"
)

// registerCollectors adds to /metrics what needs other parts of the graph:
// the connection pool's statistics (go_sql_*{db_name="fulfillment"}: open,
// in use, idle, the pool's size, waits and time waited) and the build.
func registerCollectors(m *telemetry.Metrics, db *bun.DB) error {
	return errors.Join(
		m.Registry.Register(collectors.NewDBStatsCollector(db.DB, "fulfillment")),
		m.Registry.Register(telemetry.BuildInfo(Version)),
	)
}
