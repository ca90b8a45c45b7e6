package httpapi

import (
	"net/http"

	"github.com/acme3pl/fulfillment/application"
)

// StatusClientClosedRequest is the status logged and counted for a client
// that went away before its answer (nginx's 499): not an error of the
// service, and never seen by the client.
const StatusClientClosedRequest = 499

// Answer is how the HTTP API answers one kind of error.
type Answer struct {
	// Status is the HTTP status.
	Status int
	// Problem is the `code` of a problem+json answer (every route but the
	// order intake); Intake the `error` of the order intake's answer.
	Problem, Intake string
	// Detail is the human sentence sent with it, unless the error carries a
	// more precise one of its own (a *domain.ValidationError).
	Detail string
}

// answers is the one place that maps a kind of error to its HTTP answer.
// The intake's code is the kind's own (application.Kind.Code, which order
// receipts record too) but for credentials: the intake's are API keys; so
// is the problem's code but for a malformed request. A kind not listed
// (application.KindInternal, or one this table does not know yet) is
// answered as internal.
var answers = map[application.Kind]Answer{
	application.KindClientGone:             {Status: StatusClientClosedRequest, Detail: "the client closed the connection before the answer"},
	application.KindShed:                   {Status: http.StatusServiceUnavailable, Detail: "the service is overloaded; retry later"},
	application.KindTimeout:                {Status: http.StatusServiceUnavailable, Detail: "the request could not be answered in time; retry later"},
	application.KindUnavailable:            {Status: http.StatusServiceUnavailable, Detail: "the database cannot be reached; retry later"},
	application.KindInvalid:                {Status: http.StatusBadRequest, Problem: "invalid_parameter", Detail: "the request is malformed"},
	application.KindOnHandBound:            {Status: http.StatusUnprocessableEntity, Problem: "invalid_parameter", Detail: "the receipt would take on hand of an item at the warehouse past its bound"},
	application.KindTooLarge:               {Status: http.StatusRequestEntityTooLarge, Detail: "the body is larger than the limit"},
	application.KindUnsupportedMedia:       {Status: http.StatusUnsupportedMediaType, Detail: "the body must be JSON with Content-Type: application/json"},
	application.KindInvalidSignature:       {Status: http.StatusUnauthorized, Detail: "X-Shopify-Hmac-Sha256 is not the HMAC-SHA256 of the body under the organization's webhook secret"},
	application.KindInvalidCredentials:     {Status: http.StatusUnauthorized, Problem: "invalid_token", Intake: "invalid_api_key", Detail: "the credentials are missing, malformed, expired, revoked or not trusted"},
	application.KindInsufficientScope:      {Status: http.StatusForbidden, Detail: "the credentials lack a scope"},
	application.KindNotFound:               {Status: http.StatusNotFound, Detail: "the record does not exist"},
	application.KindInvalidState:           {Status: http.StatusConflict, Detail: "the record's state does not allow this"},
	application.KindPayloadNotKept:         {Status: http.StatusConflict, Detail: "the order failed, but its body is no longer kept: it cannot be replayed"},
	application.KindConflict:               {Status: http.StatusConflict, Detail: "a record with this identity exists already"},
	application.KindUnknownItems:           {Status: http.StatusUnprocessableEntity, Detail: "these items are not records of the organization"},
	application.KindInsufficientStock:      {Status: http.StatusUnprocessableEntity, Detail: "the warehouse does not hold enough of these cartons; nothing was reserved"},
	application.KindOnHandShort:            {Status: http.StatusConflict, Detail: "the warehouse does not hold enough of these items on hand to ship them; nothing changed"},
	application.KindInvalidWarehouse:       {Status: http.StatusUnprocessableEntity, Detail: "warehouseId is not an active warehouse of the organization"},
	application.KindUnknownSKUs:            {Status: http.StatusUnprocessableEntity, Detail: "these SKUs are not in the organization's inventory"},
	application.KindMissingSKU:             {Status: http.StatusUnprocessableEntity, Detail: "these line items require shipping but have no SKU"},
	application.KindMissingShippingAddress: {Status: http.StatusUnprocessableEntity, Detail: "the order has no shipping_address object"},
	application.KindNoWarehouse:            {Status: http.StatusUnprocessableEntity, Detail: "the organization has no active warehouse"},
	application.KindReferenceConflict:      {Status: http.StatusConflict, Detail: "the warehouse has reported other content under this reference"},
	application.KindPeriodClosed:           {Status: http.StatusUnprocessableEntity, Detail: "the time lies inside a billing period of the organization that is closed"},
	application.KindUnknownService:         {Status: http.StatusUnprocessableEntity, Detail: "service is not a service of the organization's rate card in force at performedAt"},
}

// internalAnswer answers an internal error, and a kind answers does not know.
var internalAnswer = Answer{
	Status: http.StatusInternalServerError, Problem: "internal", Intake: "internal",
	Detail: "an internal error occurred; quote the trace ID to support",
}

// AnswerFor is k's answer, with the kind's code where answers names none.
func AnswerFor(k application.Kind) Answer {
	a, ok := answers[k]
	if !ok {
		return internalAnswer
	}
	if a.Problem == "" {
		a.Problem = k.Code()
	}
	if a.Intake == "" {
		a.Intake = k.Code()
	}
	return a
}
