package billing

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/billing"
	"github.com/acme3pl/fulfillment/domain/invoicing"
	billingports "github.com/acme3pl/fulfillment/ports/billing"
)

// UseCases are billing's use cases, each with its span and log line.
type UseCases struct {
	SetRateCard         application.Handler[SetRateCard, *billing.RateCard]
	GetRateCard         application.Handler[GetRateCard, *billing.RateCard] // the card in force now
	ListFinalizingSoon  application.Handler[ListFinalizingSoon, []FinalizingSoon]
	RunBilling          application.Handler[RunBilling, RunResult]
	ClosePeriod         application.Handler[ClosePeriod, Closed]
	PreviewInvoices     application.Handler[PreviewInvoices, []*invoicing.Invoice]
	AddCharge           application.Handler[AddCharge, AddChargeResult]
	ChangeInvoiceStatus application.Handler[ChangeInvoiceStatus, invoicing.InvoiceStatus]
	OverduePeriod       application.Handler[OverduePeriod, time.Duration]
}

// New builds the use cases.
func New(d Deps, tracer trace.Tracer, log *slog.Logger) *UseCases {
	return &UseCases{
		SetRateCard:         application.Decorate("SetRateCard", NewSetRateCardHandler(d), tracer, log),
		GetRateCard:         application.Decorate("GetRateCard", NewGetRateCardHandler(d), tracer, log),
		ListFinalizingSoon:  application.Decorate("ListFinalizingSoon", NewListFinalizingSoonHandler(d), tracer, log),
		RunBilling:          application.Decorate("RunBilling", NewRunBillingHandler(d), tracer, log),
		ClosePeriod:         application.Decorate("ClosePeriod", NewClosePeriodHandler(d), tracer, log),
		PreviewInvoices:     application.Decorate("PreviewInvoices", NewPreviewInvoicesHandler(d), tracer, log),
		AddCharge:           application.Decorate("AddCharge", NewAddChargeHandler(d), tracer, log),
		ChangeInvoiceStatus: application.Decorate("ChangeInvoiceStatus", NewChangeInvoiceStatusHandler(d), tracer, log),
		// Read on every scrape of /metrics: no span.
		OverduePeriod: NewOverduePeriodHandler(d),
	}
}

// SpanAttributes names the organization on the use case's span.
func (c ClosePeriod) SpanAttributes() []attribute.KeyValue {
	return application.OrganizationAttributes(c.OrganizationID)
}

// SpanAttributes names the organization on the use case's span.
func (c PreviewInvoices) SpanAttributes() []attribute.KeyValue {
	return application.OrganizationAttributes(c.OrganizationID)
}

// SpanAttributes names the organization on the use case's span.
func (c AddCharge) SpanAttributes() []attribute.KeyValue {
	return application.OrganizationAttributes(c.OrganizationID)
}

// SpanAttributes names the organization on the use case's span.
func (c SetRateCard) SpanAttributes() []attribute.KeyValue {
	return []attribute.KeyValue{attribute.String("organization.id", c.Card.OrganizationID)}
}

// SpanAttributes names the invoice on the use case's span.
func (c ChangeInvoiceStatus) SpanAttributes() []attribute.KeyValue {
	return []attribute.KeyValue{attribute.String("invoice.id", c.InvoiceID)}
}

// OverduePeriod asks how long the oldest period past its grace has waited
// to be finalized (fulfillment_billing_overdue_period_seconds): 0 when
// none waits.
type OverduePeriod struct{}

// OverduePeriodHandler answers OverduePeriod.
type OverduePeriodHandler struct{ d Deps }

// NewOverduePeriodHandler builds the handler.
func NewOverduePeriodHandler(d Deps) *OverduePeriodHandler { return &OverduePeriodHandler{d: d} }

// Handle reads the oldest open period whose grace has passed.
func (h *OverduePeriodHandler) Handle(ctx context.Context, _ OverduePeriod) (time.Duration, error) {
	now := h.d.Clock.Now()
	end, err := h.d.Repos.BillingPeriods.OldestOverdue(ctx, now.Add(-h.d.Settings.Grace))
	if err != nil || end.IsZero() {
		return 0, err
	}
	return max(now.Sub(end.Add(h.d.Settings.Grace)), 0), nil
}

// SeedRateCards sets a fixture's rate cards in the seed's transaction, as
// `rates set` would. A card stored already, unchanged, is left as it is:
// seeding the same fixture again (`make run` after a `billing close`) is
// not setting a card into the period closed since.
func SeedRateCards(d Deps) func(ctx context.Context, r billingports.Repositories, cards []billing.RateCardParams) (int, error) {
	return func(ctx context.Context, r billingports.Repositories, cards []billing.RateCardParams) (int, error) {
		for i, p := range cards {
			card, err := billing.NewRateCard(p)
			if err != nil {
				return 0, err
			}
			stored, err := r.RateCards.InForce(ctx, card.OrganizationID(), d.Settings.Calendar.Start(card.EffectiveFrom()))
			if err == nil && stored.Equal(card) {
				continue
			}
			if err != nil && !errors.Is(err, domain.ErrNotFound) {
				return 0, err
			}
			if _, err := SetCard(ctx, d, r, card); err != nil {
				return 0, fmt.Errorf("rateCards[%d]: %w", i, err)
			}
		}
		return len(cards), nil
	}
}
