package httpapi

import (
	"net/http"

	"github.com/acme3pl/fulfillment/domain"
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
// The intake's code is the kind's own (domain.Kind.Code, which order
// receipts record too) but for credentials: the intake's are API keys; so
// is the problem's code but for a malformed request. A kind not listed
// (domain.KindInternal, or one this table does not know yet) is
// answered as internal.
var answers = map[domain.Kind]Answer{
	domain.KindClientGone:             {Status: StatusClientClosedRequest, Detail: "the client closed the connection before the answer"},
	domain.KindShed:                   {Status: http.StatusServiceUnavailable, Detail: "the service is overloaded; retry later"},
	domain.KindTimeout:                {Status: http.StatusServiceUnavailable, Detail: "the request could not be answered in time; retry later"},
	domain.KindUnavailable:            {Status: http.StatusServiceUnavailable, Detail: "the database cannot be reached; retry later"},
	domain.KindInvalid:                {Status: http.StatusBadRequest, Problem: "invalid_parameter", Detail: "the request is malformed"},
	domain.KindOnHandBound:            {Status: http.StatusUnprocessableEntity, Problem: "invalid_parameter", Detail: "the receipt would take on hand of an item at the warehouse past its bound"},
	domain.KindTooLarge:               {Status: http.StatusRequestEntityTooLarge, Detail: "the body is larger than the limit"},
	domain.KindUnsupportedMedia:       {Status: http.StatusUnsupportedMediaType, Detail: "the body must be JSON with Content-Type: application/json"},
	domain.KindInvalidSignature:       {Status: http.StatusUnauthorized, Detail: "X-Shopify-Hmac-Sha256 is not the HMAC-SHA256 of the body under the organization's webhook secret"},
	domain.KindInvalidCredentials:     {Status: http.StatusUnauthorized, Problem: "invalid_token", Intake: "invalid_api_key", Detail: "the credentials are missing, malformed, expired, revoked or not trusted"},
	domain.KindInsufficientScope:      {Status: http.StatusForbidden, Detail: "the credentials lack a scope"},
	domain.KindNotFound:               {Status: http.StatusNotFound, Detail: "the record does not exist"},
	domain.KindInvalidState:           {Status: http.StatusConflict, Detail: "the record's state does not allow this"},
	domain.KindPayloadNotKept:         {Status: http.StatusConflict, Detail: "the order failed, but its body is no longer kept: it cannot be replayed"},
	domain.KindConflict:               {Status: http.StatusConflict, Detail: "a record with this identity exists already"},
	domain.KindUnknownItems:           {Status: http.StatusUnprocessableEntity, Detail: "these items are not records of the organization"},
	domain.KindInsufficientStock:      {Status: http.StatusUnprocessableEntity, Detail: "the warehouse does not hold enough of these cartons; nothing was reserved"},
	domain.KindOnHandShort:            {Status: http.StatusConflict, Detail: "the warehouse does not hold enough of these items on hand to ship them; nothing changed"},
	domain.KindInvalidWarehouse:       {Status: http.StatusUnprocessableEntity, Detail: "warehouseId is not an active warehouse of the organization"},
	domain.KindUnknownSKUs:            {Status: http.StatusUnprocessableEntity, Detail: "these SKUs are not in the organization's inventory"},
	domain.KindMissingSKU:             {Status: http.StatusUnprocessableEntity, Detail: "these line items require shipping but have no SKU"},
	domain.KindMissingShippingAddress: {Status: http.StatusUnprocessableEntity, Detail: "the order has no shipping_address object"},
	domain.KindNoWarehouse:            {Status: http.StatusUnprocessableEntity, Detail: "the organization has no active warehouse"},
	domain.KindReferenceConflict:      {Status: http.StatusConflict, Detail: "the warehouse has reported other content under this reference"},
	domain.KindPeriodClosed:           {Status: http.StatusUnprocessableEntity, Detail: "the time lies inside a billing period of the organization that is closed"},
	domain.KindUnknownService:         {Status: http.StatusUnprocessableEntity, Detail: "service is not a service of the organization's rate card in force at performedAt"},
}

// internalAnswer answers an internal error, and a kind answers does not know.
var internalAnswer = Answer{
	Status: http.StatusInternalServerError, Problem: "internal", Intake: "internal",
	Detail: "an internal error occurred; quote the trace ID to support",
}

// AnswerFor is k's answer, with the kind's code where answers names none.
func AnswerFor(k domain.Kind) Answer {
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
