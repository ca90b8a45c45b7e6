package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// The order intake's yardstick (bench/intake/run.sh): POST
// /v0/storefront/orders decoded into what the service maps of the order,
// then the service's two statements (claimOrderSQL, acceptOrderSQL) in one
// READ COMMITTED transaction. No authentication, no validation beyond the
// id, no failure record, no cancelled or skipped orders: only what every
// accepted order costs at least.

// maxOrderBody is the service's limit of an order's body.
const maxOrderBody = 5 << 20

// order is the part of the storefront's order the service maps
// (domain/intake/storefront_payload.go).
type order struct {
	ID              int64      `json:"id"`
	OrderNumber     *int64     `json:"order_number"`
	Test            bool       `json:"test"`
	Note            string     `json:"note"`
	ShippingAddress address    `json:"shipping_address"`
	LineItems       []lineItem `json:"line_items"`
}

type address struct {
	Name         string `json:"name"`
	Company      string `json:"company"`
	Address1     string `json:"address1"`
	Address2     string `json:"address2"`
	City         string `json:"city"`
	ProvinceCode string `json:"province_code"`
	Zip          string `json:"zip"`
	CountryCode  string `json:"country_code"`
	Phone        string `json:"phone"`
}

type lineItem struct {
	ID               int64  `json:"id"`
	SKU              string `json:"sku"`
	Quantity         int64  `json:"quantity"`
	RequiresShipping *bool  `json:"requires_shipping"`
}

// decodeOrder reads an order and returns its lines to ship, as the
// service's: lines that do not require shipping dropped, SKUs trimmed of
// spaces (shipping.NormalizeSKU), one line per SKU in order of first
// appearance, quantities summed.
func decodeOrder(body []byte) (o order, skus []string, qty []int64, err error) {
	if err := json.Unmarshal(body, &o); err != nil {
		return order{}, nil, nil, err
	}
	if o.ID <= 0 {
		return order{}, nil, nil, errors.New("id must be a positive integer")
	}
	at := make(map[string]int, len(o.LineItems))
	for _, l := range o.LineItems {
		if l.RequiresShipping != nil && !*l.RequiresShipping {
			continue
		}
		sku := strings.TrimSpace(l.SKU)
		if i, ok := at[sku]; ok {
			qty[i] += l.Quantity
			continue
		}
		at[sku] = len(skus)
		skus, qty = append(skus, sku), append(qty, l.Quantity)
	}
	return o, skus, qty, nil
}

// intakeResult is the service's answer to an order; Error when refused.
type intakeResult struct {
	Success    bool   `json:"success"`
	ShipmentID string `json:"shipmentId,omitempty"`
	Duplicate  bool   `json:"duplicate,omitempty"`
	Error      string `json:"error,omitempty"`
}

// errRefused is an order the claim's reads refuse (422): Error says why.
type errRefused struct{ code string }

func (e errRefused) Error() string { return e.code }

func (h *handler) intake(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxOrderBody))
	if err != nil {
		http.Error(w, "body unreadable or too large", http.StatusBadRequest)
		return
	}
	o, skus, qty, err := decodeOrder(body)
	if err != nil {
		http.Error(w, "invalid payload", http.StatusBadRequest)
		return
	}
	res, err := h.accept(r.Context(), o, skus, qty)
	var refused errRefused
	switch {
	case errors.As(err, &refused):
		writeStatusJSON(w, http.StatusUnprocessableEntity, intakeResult{Error: refused.code})
	case err != nil:
		http.Error(w, "database unavailable", http.StatusServiceUnavailable)
	default:
		writeJSON(w, res)
	}
}

// accept runs the claim and, unless the order was already accepted or is
// refused, the acceptance, in one transaction.
func (h *handler) accept(ctx context.Context, o order, skus []string, qty []int64) (intakeResult, error) {
	now := time.Now().UTC().Truncate(time.Microsecond) // the precision PostgreSQL keeps, as the service's clock
	tx, err := h.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.ReadCommitted})
	if err != nil {
		return intakeResult{}, err
	}
	defer func() { _ = tx.Rollback(ctx) }() // a no-op after Commit
	rows, err := tx.Query(ctx, claimOrderSQL, h.org, o.ID, o.OrderNumber, randomHex(), now, skus)
	if err != nil {
		return intakeResult{}, err
	}
	var (
		status                                               string
		shipmentID, productID, sku, warehouseID, warehouseNm *string
		products                                             = make(map[string]string, len(skus))
	)
	// The receipt's columns: only its status and shipment are read.
	dest := []any{nil, nil, nil, &status, nil, nil, nil, &shipmentID, nil, nil, nil,
		&productID, &sku, nil, &warehouseID, &warehouseNm}
	_, err = pgx.ForEachRow(rows, dest, func() error {
		if productID != nil {
			products[*sku] = *productID
		}
		return nil
	})
	if err != nil {
		return intakeResult{}, err
	}
	if status == "succeeded" {
		if err := tx.Commit(ctx); err != nil {
			return intakeResult{}, err
		}
		return intakeResult{Success: true, ShipmentID: deref(shipmentID), Duplicate: true}, nil
	}
	ids := make([]string, len(skus))
	for i, s := range skus {
		if ids[i] = products[s]; ids[i] == "" {
			return intakeResult{}, errRefused{"unknown_skus"}
		}
	}
	if warehouseID == nil {
		return intakeResult{}, errRefused{"no_warehouse"}
	}
	id := "shp_" + randomHex()
	a := o.ShippingAddress
	var number int64 // the shipment's source order number: 0 when the order has none, as the service's
	if o.OrderNumber != nil {
		number = *o.OrderNumber
	}
	// The arguments in shipmentArgs' order (adapters/postgres/shipping/shipments.go),
	// then the receipt's last error and the order.
	_, err = tx.Exec(ctx, acceptOrderSQL,
		*warehouseID, ids, qty,
		h.org, id, "pick_pack", "pending", a.Name, a.Company,
		a.Address1, a.Address2, a.City, a.ProvinceCode, a.Zip,
		a.CountryCode, a.Phone, o.Note, "storefront", o.ID, number,
		o.Test, now, now, now,
		nil, o.ID)
	if err != nil {
		return intakeResult{}, err
	}
	if err := tx.Commit(ctx); err != nil {
		return intakeResult{}, err
	}
	return intakeResult{Success: true, ShipmentID: id}, nil
}

// randomHex is 32 random lowercase hex digits: a trace ID, and the
// shipment ID's suffix (as long as the service's UUIDv7 hex).
func randomHex() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read does not fail
	return hex.EncodeToString(b[:])
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
