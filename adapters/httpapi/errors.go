package httpapi

import (
	"net/http"

	"github.com/acme3pl/fulfillment/application"
)

// StatusClientClosedRequest is the status logged and counted for a client
// that went away before its answer (nginx's 499): not an error of the
// service, and never seen by the client.
const StatusClientClosedRequest = 499

// answer is how the HTTP API answers one kind of error.
type answer struct {
	// Status is the HTTP status.
	Status int
	// Problem is the `code` of a problem+json answer (every route but the
	// order intake); Intake the `error` of the order intake's answer.
	Problem, Intake string
	// Detail is the human sentence sent with it, unless the error carries a
	// more precise one of its own (a *domain.ValidationError).
	Detail string
}

// answerFor is the one place that maps a kind of error to its HTTP
// answer. The intake's code is the kind's own (application.Kind.Code, which
// order receipts record too) but for credentials: the intake's are API keys.
func answerFor(k application.Kind) answer {
	a := answer{Problem: k.Code(), Intake: k.Code()}
	switch k {
	case application.KindClientGone:
		a.Status, a.Detail = StatusClientClosedRequest, "the client closed the connection before the answer"
	case application.KindShed:
		a.Status, a.Detail = http.StatusServiceUnavailable, "the service is overloaded; retry later"
	case application.KindTimeout:
		a.Status, a.Detail = http.StatusServiceUnavailable, "the request could not be answered in time; retry later"
	case application.KindUnavailable:
		a.Status, a.Detail = http.StatusServiceUnavailable, "the database cannot be reached; retry later"
	case application.KindInvalid:
		a.Status, a.Problem, a.Detail = http.StatusBadRequest, "invalid_parameter", "the request is malformed"
	case application.KindTooLarge:
		a.Status, a.Detail = http.StatusRequestEntityTooLarge, "the body is larger than the limit"
	case application.KindUnsupportedMedia:
		a.Status, a.Detail = http.StatusUnsupportedMediaType, "the body must be JSON with Content-Type: application/json"
	case application.KindInvalidSignature:
		a.Status = http.StatusUnauthorized
		a.Detail = "X-Shopify-Hmac-Sha256 is not the HMAC-SHA256 of the body under the organization's webhook secret"
	case application.KindInvalidCredentials:
		a.Status, a.Problem, a.Intake = http.StatusUnauthorized, "invalid_token", "invalid_api_key"
		a.Detail = "the credentials are missing, malformed, expired, revoked or not trusted"
	case application.KindInsufficientScope:
		a.Status, a.Detail = http.StatusForbidden, "the credentials lack a scope"
	case application.KindNotFound:
		a.Status, a.Detail = http.StatusNotFound, "the record does not exist"
	case application.KindInvalidState:
		a.Status, a.Detail = http.StatusConflict, "the record's state does not allow this"
	case application.KindPayloadNotKept:
		a.Status, a.Detail = http.StatusConflict, "the order failed, but its body is no longer kept: it cannot be replayed"
	case application.KindConflict:
		a.Status, a.Detail = http.StatusConflict, "a record with this identity exists already"
	case application.KindUnknownItems:
		a.Status, a.Detail = http.StatusUnprocessableEntity, "these items are not records of the organization"
	case application.KindInsufficientStock:
		a.Status = http.StatusUnprocessableEntity
		a.Detail = "the warehouse does not hold enough of these cartons; nothing was reserved"
	case application.KindInvalidWarehouse:
		a.Status, a.Detail = http.StatusUnprocessableEntity, "warehouseId is not an active warehouse of the organization"
	case application.KindUnknownSKUs:
		a.Status, a.Detail = http.StatusUnprocessableEntity, "these SKUs are not in the organization's inventory"
	case application.KindMissingSKU:
		a.Status, a.Detail = http.StatusUnprocessableEntity, "these line items require shipping but have no SKU"
	case application.KindMissingShippingAddress:
		a.Status, a.Detail = http.StatusUnprocessableEntity, "the order has no shipping_address object"
	case application.KindNoWarehouse:
		a.Status, a.Detail = http.StatusUnprocessableEntity, "the organization has no active warehouse"
	case application.KindReferenceConflict:
		a.Status, a.Detail = http.StatusConflict, "the warehouse has reported other content under this reference"
	case application.KindPeriodClosed:
		a.Status, a.Detail = http.StatusUnprocessableEntity, "the time lies inside a billing period of the organization that is closed"
	case application.KindUnknownService:
		a.Status, a.Detail = http.StatusUnprocessableEntity, "service is not a service of the organization's rate card in force at performedAt"
	default: // application.KindInternal, and a kind this switch does not know yet
		a.Status, a.Problem, a.Intake = http.StatusInternalServerError, "internal", "internal"
		a.Detail = "an internal error occurred; quote the trace ID to support"
	}
	return a
}
