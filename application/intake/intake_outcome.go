package intake

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/acme3pl/fulfillment/application"
)

// IntakeOutcomeKey is the attribute of the order intake's span that says
// what the delivery came to: created, duplicate, skipped or refused. A
// delivery that failed (the database away, a bug) has none; its span's
// error status says so.
const IntakeOutcomeKey = attribute.Key("fulfillment.intake.outcome")

// setIntakeOutcome puts the outcome of a delivery on the span of ctx.
func setIntakeOutcome(ctx context.Context, res StorefrontOrderResult, err error) {
	var outcome string
	switch {
	case application.KindOf(err).Refused():
		outcome = "refused"
	case err != nil:
		return
	case res.Duplicate:
		outcome = "duplicate"
	case res.ShipmentID == "":
		outcome = "skipped"
	default:
		outcome = "created"
	}
	trace.SpanFromContext(ctx).SetAttributes(IntakeOutcomeKey.String(outcome))
}
