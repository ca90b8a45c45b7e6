package apiview

import (
	"encoding/json"
	"strconv"

	"github.com/acme3pl/fulfillment/domain"
	invoicingports "github.com/acme3pl/fulfillment/ports/invoicing"
)

// Charge is a charge behind an invoice (api/openapi.yaml, InvoiceCharge),
// and a row of its CSV.
type Charge struct {
	ID          string       `json:"id"`
	Fee         string       `json:"fee"`
	Title       string       `json:"title"`
	Quantity    json.Number  `json:"quantity"`
	UnitCost    int64        `json:"unitCost"`
	OccurredAt  string       `json:"occurredAt"`
	WarehouseID *string      `json:"warehouseId"`
	Source      ChargeSource `json:"source"`
}

// ChargeSource names the fact a charge bills.
type ChargeSource struct {
	Type string `json:"type"`
	ID   string `json:"id"`
}

// ChargeOf is a charge as the API shows it (the CLI's preview and the
// console's CSV too).
func ChargeOf(c invoicingports.InvoiceCharge) (Charge, error) {
	q, err := domain.QuantityFromMilli(c.QuantityMilli)
	if err != nil {
		return Charge{}, err
	}
	out := Charge{ID: "chg_" + strconv.FormatInt(c.ID, 10), Fee: c.Fee, Title: c.Title, Quantity: json.Number(q.String()),
		UnitCost: c.UnitCost, OccurredAt: FormatTime(c.OccurredAt), Source: ChargeSource{Type: c.SourceType, ID: c.SourceID}}
	if c.WarehouseID != "" {
		wh := c.WarehouseID
		out.WarehouseID = &wh
	}
	return out, nil
}

// ChargesCSVHeader is the CSV's header row: the JSON's names, the source's
// dotted.
var ChargesCSVHeader = []string{"id", "fee", "title", "quantity", "unitCost", "occurredAt", "warehouseId", "source.type", "source.id"}

// ChargeCSVRecord is a charge as a CSV row of ChargesCSVHeader. Its text
// cells pass through csvText; its numbers (quantity, unitCost) are written
// as they are, a credit's negative unit cost included.
func ChargeCSVRecord(c Charge) []string {
	wh := ""
	if c.WarehouseID != nil {
		wh = *c.WarehouseID
	}
	return []string{csvText(c.ID), csvText(c.Fee), csvText(c.Title), c.Quantity.String(), strconv.FormatInt(c.UnitCost, 10),
		csvText(c.OccurredAt), csvText(wh), csvText(c.Source.Type), csvText(c.Source.ID)}
}

// csvText is a text cell as a spreadsheet may safely open it: a cell that
// begins with =, +, -, @, a tab or a carriage return would be read as a
// formula (a WMS's reference =HYPERLINK(…), an operator's title =1+2), so
// it is written with a leading ' (OWASP's CSV injection guidance), which
// spreadsheets show as text. Numbers never pass through it.
func csvText(s string) string {
	if s == "" {
		return s
	}
	switch s[0] {
	case '=', '+', '-', '@', '\t', '\r':
		return "'" + s
	}
	return s
}
