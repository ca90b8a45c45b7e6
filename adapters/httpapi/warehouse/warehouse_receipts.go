package warehouse

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/gorilla/mux"

	"github.com/acme3pl/fulfillment/adapters/apiview"
	"github.com/acme3pl/fulfillment/adapters/httpapi"
	"github.com/acme3pl/fulfillment/adapters/telemetry"
	"github.com/acme3pl/fulfillment/application"
	warehouseapp "github.com/acme3pl/fulfillment/application/warehouse"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/shipping"
	"github.com/acme3pl/fulfillment/domain/warehouse"
)

// Receiving serves what a warehouse reports of its day (scope
// warehouse, a warehouse's token): goods received and services performed.
// Both are idempotent on the warehouse's reference: 201 for a new report,
// 200 with the first one for a retry of the same content.
type Receiving struct {
	httpapi.Group[warehouseapp.UseCases]
}

// NewReceiving builds the receiving routes.
func NewReceiving(app *warehouseapp.UseCases, auth httpapi.Authenticator, errs httpapi.ErrorMapper, m *telemetry.Metrics) *Receiving {
	return &Receiving{httpapi.NewGroup(app, auth, errs, m)}
}

// Register implements Routes.
func (h *Receiving) Register(r *mux.Router) {
	r.Handle("/v0/warehouse/receipts", httpapi.Guarded(h.Auth.RequireWarehouse, h.receive)).Methods(http.MethodPost)
	r.Handle("/v0/warehouse/services", httpapi.Guarded(h.Auth.RequireWarehouse, h.service)).Methods(http.MethodPost)
}

// ServiceDTO is the WarehouseService of api/openapi.yaml. Its
// quantity is a JSON number with at most three decimals.
type ServiceDTO struct {
	ID             string      `json:"id"`
	OrganizationID string      `json:"organizationId"`
	WarehouseID    string      `json:"warehouseId"`
	Reference      string      `json:"reference"`
	Service        string      `json:"service"`
	Quantity       json.Number `json:"quantity"`
	PerformedAt    string      `json:"performedAt"`
	Note           string      `json:"note"`
	CreatedAt      string      `json:"createdAt"`
}

func toWarehouseServiceDTO(s *warehouse.ServiceRecord) ServiceDTO {
	return ServiceDTO{
		ID: s.ID(), OrganizationID: s.OrganizationID(), WarehouseID: s.WarehouseID(), Reference: s.Reference(),
		Service: s.Service(), Quantity: json.Number(warehouse.FormatMilli(s.QuantityMilli())),
		PerformedAt: apiview.FormatTime(s.PerformedAt()), Note: s.Note(), CreatedAt: apiview.FormatTime(s.CreatedAt()),
	}
}

// receiptBody is the body of POST /v0/warehouse/receipts.
type receiptBody struct {
	OrganizationID string             `json:"organizationId"`
	Reference      string             `json:"reference"`
	ReceivedAt     *string            `json:"receivedAt"`
	Items          *[]json.RawMessage `json:"items"`
}

// receiptLineBody is one of its items: exactly one of productId and
// cartonId. A quantity that is not a JSON integer of 64 bits maps to 0,
// which the domain refuses as it refuses any quantity out of its bounds.
type receiptLineBody struct {
	ProductID *string         `json:"productId"`
	CartonID  *string         `json:"cartonId"`
	Quantity  json.RawMessage `json:"quantity"`
}

func (l receiptLineBody) Line() warehouse.ReceiptLine {
	quantity, _ := httpapi.JSONInteger(l.Quantity)
	switch {
	case l.ProductID != nil && l.CartonID == nil:
		return warehouse.ReceiptLine{Kind: shipping.KindProduct, ItemID: *l.ProductID, Quantity: quantity}
	case l.CartonID != nil && l.ProductID == nil:
		return warehouse.ReceiptLine{Kind: shipping.KindCarton, ItemID: *l.CartonID, Quantity: quantity}
	}
	return warehouse.ReceiptLine{Quantity: quantity} // neither or both: the domain names the item
}

// receive serves POST /v0/warehouse/receipts.
func (h *Receiving) receive(w http.ResponseWriter, r *http.Request) {
	var body receiptBody
	receivedAt, err := readReport(r, &body)
	if err != nil {
		h.Errors.Write(w, r, err)
		return
	}
	lines, err := httpapi.DecodeLines[receiptLineBody, warehouse.ReceiptLine]("items", body.Items)
	if err != nil {
		h.Errors.Write(w, r, err)
		return
	}
	res, err := h.App.RecordWarehouseReceipt.Handle(r.Context(), warehouseapp.RecordWarehouseReceipt{
		WarehouseID: httpapi.PrincipalFrom(r.Context()).WarehouseID, OrganizationID: body.OrganizationID,
		Reference: body.Reference, ReceivedAt: receivedAt, Lines: lines,
	})
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if res.Created {
		for _, kind := range []shipping.ItemKind{shipping.KindProduct, shipping.KindCarton} {
			h.Metrics.ObserveUnitsReceived(string(kind), res.Report.Units(kind))
		}
	}
	writeReport(w, res.Created, apiview.WarehouseReceiptOf(res.Report))
}

// serviceBody is the body of POST /v0/warehouse/services. The quantity is
// read from its JSON text (ParseMilli), never through a float.
type serviceBody struct {
	OrganizationID string          `json:"organizationId"`
	Reference      string          `json:"reference"`
	Service        string          `json:"service"`
	Quantity       json.RawMessage `json:"quantity"`
	PerformedAt    *string         `json:"performedAt"`
	Note           *string         `json:"note"`
}

// service serves POST /v0/warehouse/services.
func (h *Receiving) service(w http.ResponseWriter, r *http.Request) {
	var body serviceBody
	performedAt, err := readReport(r, &body)
	if err != nil {
		h.Errors.Write(w, r, err)
		return
	}
	// Anything but a JSON number in bounds (absent, null, a string, four
	// decimals) maps to 0, which the domain refuses in the order of its
	// checks.
	var milli int64
	if n := body.Quantity; len(n) > 0 && (n[0] == '-' || n[0] >= '0' && n[0] <= '9') {
		milli, _ = warehouse.ParseMilli("quantity", string(n))
	}
	var note string
	if body.Note != nil {
		note = *body.Note
	}
	res, err := h.App.RecordWarehouseService.Handle(r.Context(), warehouseapp.RecordWarehouseService{
		WarehouseID: httpapi.PrincipalFrom(r.Context()).WarehouseID, OrganizationID: body.OrganizationID,
		Reference: body.Reference, Service: body.Service, QuantityMilli: milli, PerformedAt: performedAt, Note: note,
	})
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeReport(w, res.Created, toWarehouseServiceDTO(res.Report))
}

// reportBody is the body of a report: it says when the report's fact
// happened.
type reportBody interface {
	reportedAt() (*time.Time, error)
}

func (b *receiptBody) reportedAt() (*time.Time, error) {
	return parseReportedAt("receivedAt", b.ReceivedAt)
}
func (b *serviceBody) reportedAt() (*time.Time, error) {
	return parseReportedAt("performedAt", b.PerformedAt)
}

// readReport reads a report's body into body, and then its time.
func readReport(r *http.Request, body reportBody) (*time.Time, error) {
	if err := httpapi.ReadJSON(r, body); err != nil {
		return nil, err
	}
	return body.reportedAt()
}

// parseReportedAt reads an optional RFC 3339 time; absent or null is none.
func parseReportedAt(field string, s *string) (*time.Time, error) {
	if s == nil {
		return nil, nil
	}
	t, err := time.Parse(time.RFC3339Nano, *s)
	if err != nil {
		return nil, domain.Invalid(field, "must be an RFC 3339 time such as 2026-11-22T01:15:05.123Z")
	}
	return &t, nil
}

// writeReport answers a report: 201 for a new one, 200 with the first one
// for a retry of the same content.
func writeReport(w http.ResponseWriter, created bool, report any) {
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	httpapi.WriteJSON(w, status, report)
}

// fail answers an error of these routes. invalid_warehouse here means that
// the token's warehouse does not serve organizationId (or that there is no
// such organization), and its detail says so.
func (h *Receiving) fail(w http.ResponseWriter, r *http.Request, err error) {
	if application.KindOf(err) != domain.KindInvalidWarehouse {
		h.Errors.Write(w, r, err)
		return
	}
	p := httpapi.ProblemFor(err)
	p.Detail = "the warehouse does not serve organizationId, or there is no such organization"
	httpapi.NoteError(h.Errors.Log, r, err)
	httpapi.WriteProblem(w, r, p)
}
