package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gorilla/mux"

	"github.com/acme3pl/fulfillment/adapters/telemetry"
	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/domain"
)

// WarehouseRefDTO is the short warehouse object carried by shipments and
// stock levels.
type WarehouseRefDTO struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// ShipmentDTO is the shipment of CONTRACT §6. A Pick & Pack shipment carries
// `items` and no `cartons` member; an SPD shipment carries `cartons` and no
// `items` member (every shipment has at least one line, so the member of its
// kind is never empty).
type ShipmentDTO struct {
	ID               string              `json:"id"`
	Kind             string              `json:"kind"`
	Status           string              `json:"status"`
	Warehouse        WarehouseRefDTO     `json:"warehouse"`
	ShippingName     string              `json:"shippingName"`
	ShippingCompany  string              `json:"shippingCompany"`
	ShippingAddress1 string              `json:"shippingAddress1"`
	ShippingAddress2 string              `json:"shippingAddress2"`
	ShippingCity     string              `json:"shippingCity"`
	ShippingState    string              `json:"shippingState"`
	ShippingZip      string              `json:"shippingZip"`
	ShippingCountry  string              `json:"shippingCountry"`
	ShippingPhone    string              `json:"shippingPhone"`
	Notes            string              `json:"notes"`
	Items            []ShipmentItemDTO   `json:"items,omitempty"`
	Cartons          []ShipmentCartonDTO `json:"cartons,omitempty"`
	Source           *ShipmentSourceDTO  `json:"source"`
	Test             bool                `json:"test"`
	CreatedAt        string              `json:"createdAt"`
	UpdatedAt        string              `json:"updatedAt"`
	SubmittedAt      *string             `json:"submittedAt"`
}

// ShipmentItemDTO is a product line of a Pick & Pack shipment.
type ShipmentItemDTO struct {
	ProductID string `json:"productId"`
	SKU       string `json:"sku"`
	Quantity  int64  `json:"quantity"`
}

// ShipmentCartonDTO is a carton line of an SPD shipment.
type ShipmentCartonDTO struct {
	CartonID string `json:"cartonId"`
	SKU      string `json:"sku"`
	Quantity int64  `json:"quantity"`
}

// ShipmentSourceDTO tells which storefront order made a shipment. Storefront
// IDs are decimal strings: they exceed JavaScript's safe integers.
type ShipmentSourceDTO struct {
	Type        string  `json:"type"`
	OrderID     string  `json:"orderId"`
	OrderNumber *string `json:"orderNumber"` // null when the order had none
}

// toShipmentDTO is the one conversion of a shipment for responses; the
// order intake's responses use it too.
func toShipmentDTO(s *domain.Shipment) ShipmentDTO {
	a := s.Address()
	out := ShipmentDTO{
		ID: s.ID(), Kind: string(s.Kind()), Status: string(s.Status()),
		Warehouse:    WarehouseRefDTO{ID: s.Warehouse().ID, Name: s.Warehouse().Name},
		ShippingName: a.Name, ShippingCompany: a.Company, ShippingAddress1: a.Address1, ShippingAddress2: a.Address2,
		ShippingCity: a.City, ShippingState: a.State, ShippingZip: a.Zip, ShippingCountry: a.Country, ShippingPhone: a.Phone,
		Notes: s.Notes(), Test: s.Test(),
		CreatedAt: FormatTime(s.CreatedAt()), UpdatedAt: FormatTime(s.UpdatedAt()), SubmittedAt: FormatTimePtr(s.SubmittedAt()),
	}
	lines := s.Lines()
	if s.Kind() == domain.SPD {
		out.Cartons = make([]ShipmentCartonDTO, len(lines))
		for i, l := range lines {
			out.Cartons[i] = ShipmentCartonDTO{CartonID: l.ItemID, SKU: l.SKU, Quantity: l.Quantity}
		}
	} else {
		out.Items = make([]ShipmentItemDTO, len(lines))
		for i, l := range lines {
			out.Items[i] = ShipmentItemDTO{ProductID: l.ItemID, SKU: l.SKU, Quantity: l.Quantity}
		}
	}
	if src := s.Source(); src != nil {
		dto := &ShipmentSourceDTO{Type: src.Type, OrderID: strconv.FormatInt(src.OrderID, 10)}
		if src.OrderNumber != 0 {
			n := strconv.FormatInt(src.OrderNumber, 10)
			dto.OrderNumber = &n
		}
		out.Source = dto
	}
	return out
}

// shortageDTO is one short carton of a 422 insufficient_stock problem.
type shortageDTO struct {
	CartonID  string `json:"cartonId"`
	SKU       string `json:"sku"`
	Requested int64  `json:"requested"`
	Available int64  `json:"available"`
}

func shortageDTOs(items []domain.StockShortage) []shortageDTO {
	out := make([]shortageDTO, len(items))
	for i, it := range items {
		out[i] = shortageDTO{CartonID: it.ItemID, SKU: it.SKU, Requested: it.Requested, Available: it.Available}
	}
	return out
}

// Shipments serves the /v0/shipments routes (scope shipments).
type Shipments struct {
	app    *application.Application
	auth   Authenticator
	errors ErrorMapper
	m      *telemetry.Metrics
}

// NewShipments builds the shipment routes.
func NewShipments(app *application.Application, auth Authenticator, errs ErrorMapper, m *telemetry.Metrics) *Shipments {
	return &Shipments{app: app, auth: auth, errors: errs, m: m}
}

// Register implements Routes.
func (h *Shipments) Register(r *mux.Router) {
	guard := func(next http.HandlerFunc) http.Handler { return h.auth.RequireScope(domain.ScopeShipments, next) }
	withBody := func(next http.HandlerFunc) http.Handler {
		return h.auth.RequireScope(domain.ScopeShipments, withBodyLimit(DefaultBodyLimit, next).ServeHTTP)
	}
	r.Handle("/v0/shipments", guard(h.list)).Methods(http.MethodGet)
	r.Handle("/v0/shipments/pick-pack", withBody(h.createDraft(pickPackDraft))).Methods(http.MethodPost)
	r.Handle("/v0/shipments/spd", withBody(h.createDraft(spdDraft))).Methods(http.MethodPost)
	r.Handle("/v0/shipments/{id}", guard(h.get)).Methods(http.MethodGet)
	r.Handle("/v0/shipments/{id}/submit", guard(h.submit)).Methods(http.MethodPost)
	r.Handle("/v0/shipments/{id}/cancel", guard(h.cancel)).Methods(http.MethodPost)
}

func (h *Shipments) list(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	page, err := ParsePage(q)
	if err != nil {
		h.errors.Write(w, r, err)
		return
	}
	var status domain.ShipmentStatus
	if v, ok := q["status"]; ok {
		if status, err = domain.ParseShipmentStatus(last(v)); err != nil {
			h.errors.Write(w, r, err)
			return
		}
	}
	org := PrincipalFrom(r.Context()).OrganizationID
	res, err := h.app.Queries.ListShipments.Handle(r.Context(), application.ListShipments{OrganizationID: org, Status: status, Page: page})
	if err != nil {
		h.errors.Write(w, r, err)
		return
	}
	out := make([]ShipmentDTO, len(res.Shipments))
	for i, s := range res.Shipments {
		out[i] = toShipmentDTO(s)
	}
	SetNextLink(w, r, page, res.More)
	WriteJSON(w, http.StatusOK, out)
}

func (h *Shipments) get(w http.ResponseWriter, r *http.Request) {
	org := PrincipalFrom(r.Context()).OrganizationID
	s, err := h.app.Queries.GetShipment.Handle(r.Context(), application.GetShipment{OrganizationID: org, ShipmentID: mux.Vars(r)["id"]})
	h.answer(w, r, http.StatusOK, s, err)
}

func (h *Shipments) submit(w http.ResponseWriter, r *http.Request) {
	org := PrincipalFrom(r.Context()).OrganizationID
	s, err := h.app.Commands.SubmitShipment.Handle(r.Context(), application.SubmitShipment{OrganizationID: org, ShipmentID: mux.Vars(r)["id"]})
	countTransition(h.m, s, err)
	h.answer(w, r, http.StatusOK, s, err)
}

func (h *Shipments) cancel(w http.ResponseWriter, r *http.Request) {
	org := PrincipalFrom(r.Context()).OrganizationID
	s, err := h.app.Commands.CancelShipment.Handle(r.Context(), application.CancelShipment{OrganizationID: org, ShipmentID: mux.Vars(r)["id"]})
	countTransition(h.m, s, err)
	h.answer(w, r, http.StatusOK, s, err)
}

func (h *Shipments) answer(w http.ResponseWriter, r *http.Request, status int, s *domain.Shipment, err error) {
	if err != nil {
		h.errors.Write(w, r, err)
		return
	}
	WriteJSON(w, status, toShipmentDTO(s))
}

// draftBody is the body of both draft kinds: a Pick & Pack draft has
// items, an SPD draft cartons, and the member of the other kind is refused
// like any unknown member.
type draftBody struct {
	WarehouseID      string             `json:"warehouseId"`
	ShippingName     string             `json:"shippingName"`
	ShippingCompany  string             `json:"shippingCompany"`
	ShippingAddress1 string             `json:"shippingAddress1"`
	ShippingAddress2 string             `json:"shippingAddress2"`
	ShippingCity     string             `json:"shippingCity"`
	ShippingState    string             `json:"shippingState"`
	ShippingZip      string             `json:"shippingZip"`
	ShippingCountry  string             `json:"shippingCountry"`
	ShippingPhone    string             `json:"shippingPhone"`
	Notes            string             `json:"notes"`
	Items            *[]json.RawMessage `json:"items"`
	Cartons          *[]json.RawMessage `json:"cartons"`
}

type productLineBody struct {
	ProductID string          `json:"productId"`
	Quantity  json.RawMessage `json:"quantity"`
}

type cartonLineBody struct {
	CartonID string          `json:"cartonId"`
	Quantity json.RawMessage `json:"quantity"`
}

// draftShape is how the body of one draft kind names its lines: Pick & Pack
// drafts have items of products, SPD drafts cartons; the member of the other
// kind is refused.
type draftShape struct {
	kind         domain.ShipmentKind
	label        string // for messages
	field, other string // the lines member and the other kind's
	idMember     string
	line         func(raw []byte) (id string, qty json.RawMessage, err error)
}

var (
	pickPackDraft = draftShape{
		kind: domain.PickPack, label: "a Pick & Pack", field: "items", other: "cartons", idMember: "productId",
		line: func(raw []byte) (string, json.RawMessage, error) {
			var l productLineBody
			err := strictUnmarshal(raw, &l)
			return l.ProductID, l.Quantity, err
		},
	}
	spdDraft = draftShape{
		kind: domain.SPD, label: "an SPD", field: "cartons", other: "items", idMember: "cartonId",
		line: func(raw []byte) (string, json.RawMessage, error) {
			var l cartonLineBody
			err := strictUnmarshal(raw, &l)
			return l.CartonID, l.Quantity, err
		},
	}
)

// lines returns the body's lines member and the other kind's.
func (d draftShape) lines(b draftBody) (own, other *[]json.RawMessage) {
	if d.kind == domain.SPD {
		return b.Cartons, b.Items
	}
	return b.Items, b.Cartons
}

// createDraft serves POST /v0/shipments/pick-pack or /spd.
func (h *Shipments) createDraft(d draftShape) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var body draftBody
		if err := readJSON(r, &body); err != nil {
			h.errors.Write(w, r, err)
			return
		}
		own, other := d.lines(body)
		if other != nil {
			h.errors.Write(w, r, domain.Invalid(d.other, "is not a member of %s draft", d.label))
			return
		}
		h.create(w, r, d.kind, body, func() ([]domain.ShipmentLine, error) {
			return decodeLines(rawLines(own), d.field, d.idMember, d.line)
		})
	}
}

// rawLines is the lines member of a draft body; nil when absent or null.
func rawLines(p *[]json.RawMessage) []json.RawMessage {
	if p == nil {
		return nil
	}
	return *p
}

// create validates a decoded draft body in the order of its members
// (warehouse, shipping fields, lines) and creates the draft.
func (h *Shipments) create(w http.ResponseWriter, r *http.Request, kind domain.ShipmentKind, b draftBody, decode func() ([]domain.ShipmentLine, error)) {
	if b.WarehouseID == "" {
		h.errors.Write(w, r, domain.Invalid("warehouseId", "is required"))
		return
	}
	addr, err := b.address()
	if err != nil {
		h.errors.Write(w, r, err)
		return
	}
	lines, err := decode()
	if err != nil {
		h.errors.Write(w, r, err)
		return
	}
	s, err := h.app.Commands.CreateShipment.Handle(r.Context(), application.CreateShipment{
		OrganizationID: PrincipalFrom(r.Context()).OrganizationID,
		Kind:           kind, WarehouseID: b.WarehouseID, Address: addr, Notes: b.Notes, Lines: lines,
	})
	countTransition(h.m, s, err)
	if err != nil {
		h.errors.Write(w, r, err)
		return
	}
	w.Header().Set("Location", "/v0/shipments/"+s.ID())
	WriteJSON(w, http.StatusCreated, toShipmentDTO(s))
}

// maxShippingField bounds each shipping field, in characters.
const maxShippingField = 255

var countryPattern = regexp.MustCompile(`^[A-Za-z]{2}$`)

// address validates the shipping members and notes. None is required. A
// warehouseId that cannot be an ID is left to the use case, which answers it
// like any unknown warehouse (422 invalid_warehouse).
func (b draftBody) address() (domain.ShippingAddress, error) {
	fields := []struct {
		name, value string
		max         int
	}{
		{"shippingName", b.ShippingName, maxShippingField},
		{"shippingCompany", b.ShippingCompany, maxShippingField}, {"shippingAddress1", b.ShippingAddress1, maxShippingField},
		{"shippingAddress2", b.ShippingAddress2, maxShippingField}, {"shippingCity", b.ShippingCity, maxShippingField},
		{"shippingState", b.ShippingState, maxShippingField}, {"shippingZip", b.ShippingZip, maxShippingField},
		{"shippingCountry", b.ShippingCountry, 2}, {"shippingPhone", b.ShippingPhone, maxShippingField},
		{"notes", b.Notes, domain.MaxNotesBytes},
	}
	for _, f := range fields {
		if strings.ContainsRune(f.value, 0) {
			return domain.ShippingAddress{}, domain.Invalid(f.name, "must not contain NUL characters")
		}
		if f.name == "notes" && len(f.value) > domain.MaxNotesBytes {
			return domain.ShippingAddress{}, domain.Invalid(f.name, "must be at most %d bytes", domain.MaxNotesBytes)
		}
		if utf8.RuneCountInString(f.value) > f.max {
			return domain.ShippingAddress{}, domain.Invalid(f.name, "must be at most %d characters", f.max)
		}
	}
	if b.ShippingCountry != "" && !countryPattern.MatchString(b.ShippingCountry) {
		return domain.ShippingAddress{}, domain.Invalid("shippingCountry", "must be a two-letter ISO 3166-1 alpha-2 code")
	}
	return domain.ShippingAddress{
		Name: b.ShippingName, Company: b.ShippingCompany, Address1: b.ShippingAddress1, Address2: b.ShippingAddress2,
		City: b.ShippingCity, State: b.ShippingState, Zip: b.ShippingZip, Country: strings.ToUpper(b.ShippingCountry),
		Phone: b.ShippingPhone,
	}, nil
}

// decodeLines decodes each line of a draft strictly and checks its ID and
// quantity, naming the offending member as field[i].member.
func decodeLines(raws []json.RawMessage, field, idMember string, decode func([]byte) (string, json.RawMessage, error)) ([]domain.ShipmentLine, error) {
	if len(raws) == 0 {
		return nil, domain.Invalid(field, "must hold at least one line")
	}
	if len(raws) > domain.MaxShipmentLines {
		return nil, domain.Invalid(field, "must hold at most %d lines", domain.MaxShipmentLines)
	}
	lines := make([]domain.ShipmentLine, len(raws))
	for i, raw := range raws {
		at := fmt.Sprintf("%s[%d]", field, i)
		id, qty, err := decode(raw)
		if err != nil {
			return nil, jsonError(at, err)
		}
		if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
			return nil, domain.Invalid(at, "must be an object")
		}
		if id == "" {
			return nil, domain.Invalid(at+"."+idMember, "is required")
		}
		n, err := parseQuantity(at+".quantity", qty)
		if err != nil {
			return nil, err
		}
		lines[i] = domain.ShipmentLine{ItemID: id, Quantity: n}
	}
	return lines, nil
}

// parseQuantity reads a JSON integer (not a string, not a fraction, not an
// exponent) within the domain's bounds.
func parseQuantity(field string, raw json.RawMessage) (int64, error) {
	s := string(bytes.TrimSpace(raw))
	if s == "" || s == "null" {
		return 0, domain.Invalid(field, "is required")
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, domain.CheckLineQuantity(field, 0)
	}
	return n, domain.CheckLineQuantity(field, n)
}

// readJSON decodes the request body into dst strictly: the content type must
// be application/json (a charset parameter, if any, utf-8), the body one
// JSON object with no unknown members. Malformed bodies are
// *domain.ValidationError naming the member, or `body`.
func readJSON(r *http.Request, dst any) error {
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/json" {
		return application.ErrUnsupportedMediaType
	}
	if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") {
		return application.ErrUnsupportedMediaType
	}
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		if errors.Is(err, io.EOF) {
			return domain.Invalid("body", "a JSON object is required")
		}
		return jsonError("", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return application.ErrPayloadTooLarge
		}
		return domain.Invalid("body", "must hold exactly one JSON object")
	}
	return nil
}

// strictUnmarshal decodes one JSON value with no unknown members.
func strictUnmarshal(raw []byte, dst any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	return dec.Decode(dst)
}

// jsonError turns a decoding error into a *domain.ValidationError naming the
// member (prefixed with at, the path of the value decoded), or
// application.ErrPayloadTooLarge.
func jsonError(at string, err error) error {
	join := func(name string) string {
		switch {
		case at == "" && name == "":
			return "body"
		case at == "":
			return name
		case name == "":
			return at
		}
		return at + "." + name
	}
	var tooLarge *http.MaxBytesError
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &tooLarge):
		return application.ErrPayloadTooLarge
	case errors.As(err, &typeErr):
		if typeErr.Field == "" {
			return domain.Invalid(join(""), "must be a JSON object")
		}
		return domain.Invalid(join(typeErr.Field), "must not be a JSON %s", typeErr.Value)
	case errors.As(err, &syntaxErr), errors.Is(err, io.ErrUnexpectedEOF):
		return domain.Invalid(join(""), "is not valid JSON")
	}
	// encoding/json has no typed error for unknown members.
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		if unq, uerr := strconv.Unquote(name); uerr == nil {
			name = unq
		}
		return domain.Invalid(join(name), "is not a member of this body")
	}
	return domain.Invalid(join(""), "is not valid JSON")
}
