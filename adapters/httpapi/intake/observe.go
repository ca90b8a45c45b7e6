package intake

import (
	"net/http"

	"github.com/acme3pl/fulfillment/adapters/httpapi"
	"github.com/acme3pl/fulfillment/adapters/telemetry"
	intakeapp "github.com/acme3pl/fulfillment/application/intake"
	"github.com/acme3pl/fulfillment/domain/shipping"
)

// The intake's business metrics are counted here, where the answer is
// known and the transaction behind it has committed (the kit's observe.go
// says why).

// countIntakeError counts an error answer of the order intake: refused
// (4xx) or failed (5xx), with its error code. A delivery whose client went
// away was not answered and is not counted: the storefront delivers it
// again.
func countIntakeError(m *telemetry.Metrics, e intakeError) {
	switch {
	case e.status == httpapi.StatusClientClosedRequest:
	case e.status >= http.StatusInternalServerError:
		m.ObserveIntake(telemetry.IntakeFailed, e.Error)
	default:
		m.ObserveIntake(telemetry.IntakeRefused, e.Error)
	}
}

// countIntakeResult counts a success answer of the order intake, and the
// Pick & Pack shipment it submitted when it made one.
func countIntakeResult(m *telemetry.Metrics, res intakeapp.StorefrontOrderResult) {
	switch {
	case res.Duplicate:
		m.ObserveIntake(telemetry.IntakeDuplicate, "")
	case res.ShipmentID == "":
		m.ObserveIntake(telemetry.IntakeSkipped, "")
	default:
		m.ObserveIntake(telemetry.IntakeCreated, "")
		m.ObserveShipmentTransition(string(shipping.PickPack), string(shipping.ShipmentPending))
	}
}
