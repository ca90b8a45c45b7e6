package bootstrap

import (
	"context"
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/uptrace/bun"

	"github.com/acme3pl/fulfillment/adapters/postgres"
	"github.com/acme3pl/fulfillment/adapters/telemetry"
	intakeapp "github.com/acme3pl/fulfillment/application/intake"
	"github.com/acme3pl/fulfillment/ports"
	intakeports "github.com/acme3pl/fulfillment/ports/intake"
)

// registerCollectors adds to /metrics what needs other parts of the graph:
// the connection pool's statistics (go_sql_*{db_name="fulfillment"}: open,
// in use, idle, the pool's size, waits and time waited), the build, and
// the failed orders that wait for a replay (read on scrape, without a span).
func registerCollectors(m *telemetry.Metrics, db *bun.DB, repos intakeports.Repositories, clock ports.Clock) error {
	count := intakeapp.NewCountFailedOrdersHandler(repos.Receipts, clock)
	failed := telemetry.NewFailedOrdersCollector(func(ctx context.Context) (map[string]int, time.Duration, error) {
		res, err := count.Handle(ctx, intakeapp.CountFailedOrders{})
		return res.ByCode, res.OldestAge, err
	}, append(append([]string{}, intakeapp.ReceiptErrorCodes...), intakeapp.OtherReceiptError))
	return errors.Join(
		m.Registry.Register(collectors.NewDBStatsCollector(db.DB, "fulfillment")),
		m.Registry.Register(telemetry.BuildInfo(Version)),
		m.Registry.Register(failed),
		m.Registry.Register(telemetry.NewOutboxCollector(postgres.NewEventOutboxRepository(db).Stats)),
	)
}
