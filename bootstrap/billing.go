package bootstrap

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"go.opentelemetry.io/otel/trace"
	"go.uber.org/fx"

	"github.com/acme3pl/fulfillment/adapters/telemetry"
	billingapp "github.com/acme3pl/fulfillment/application/billing"
	"github.com/acme3pl/fulfillment/ports"
	billingports "github.com/acme3pl/fulfillment/ports/billing"
)

// BillingModule provides billing's use cases, to the server and to the
// operator's commands alike; each provides the billingapp.Observer that
// counts what billing did.
var BillingModule = fx.Module("billing",
	fx.Provide(newBillingDeps, billingapp.New),
)

// BillingJobModule is the server's part of billing: it counts charges and
// finalizations in the metrics, exposes the overdue gauge and runs billing
// every BILLING_INTERVAL (docs/billing.md), on every replica: runs at once
// give what one run gives.
var BillingJobModule = fx.Module("billing-job",
	fx.Provide(func(m *telemetry.Metrics) billingapp.Observer { return m }),
	fx.Invoke(registerBillingCollector, startBilling),
)

func newBillingDeps(uow ports.UnitOfWork[billingports.Repositories], repos billingports.Repositories, clock ports.Clock, ids ports.IDGenerator,
	cfg Config, obs billingapp.Observer,
) billingapp.Deps {
	return billingapp.Deps{UnitOfWork: uow, Repos: repos, Clock: clock, IDs: ids, Settings: cfg.Billing(), Observer: obs}
}

func registerBillingCollector(m *telemetry.Metrics, uc *billingapp.UseCases) error {
	return m.Registry.Register(telemetry.NewBillingOverdueCollector(func(ctx context.Context) (time.Duration, error) {
		return uc.OverduePeriod.Handle(ctx, billingapp.OverduePeriod{})
	}))
}

// startBilling runs billing as a job (jobs.go): a first run within a
// minute of start, then every BILLING_INTERVAL, each run one log line.
func startBilling(lc fx.Lifecycle, cfg Config, uc *billingapp.UseCases, tracer trace.Tracer, log *slog.Logger) {
	startJob(lc, tickerJob("billing", min(cfg.BillingInterval, time.Minute), cfg.BillingInterval, tracer, log,
		func(ctx context.Context) (string, []slog.Attr, error) {
			res, err := uc.RunBilling.Handle(ctx, billingapp.RunBilling{})
			charges := 0
			for _, n := range res.Charges {
				charges += n
			}
			attrs := []slog.Attr{slog.Int("charges", charges), slog.Int("periods_finalized", len(res.Finalized)),
				slog.Int("invoices_finalized", res.Invoices()), slog.Int("invoices_collecting", len(res.Collected)),
				slog.Int("periods_failed", len(res.Failed))}
			return fmt.Sprintf("billing run: %d invoices finalized", res.Invoices()), attrs, err
		}))
}
