package apiview

import (
	"encoding/json"

	"github.com/acme3pl/fulfillment/domain/invoicing"
)

// Invoice is the Invoice of api/openapi.yaml: every field always present.
// deletedAt is always null, since deleted invoices are never served.
type Invoice struct {
	ID          string        `json:"id"`
	Status      string        `json:"status"`
	Name        string        `json:"name"`
	Notes       string        `json:"notes"`
	DueDate     string        `json:"dueDate"`
	Items       []InvoiceItem `json:"items"`
	TotalAmount int64         `json:"totalAmount"`
	Currency    string        `json:"currency"`
	CreatedAt   string        `json:"createdAt"`
	UpdatedAt   string        `json:"updatedAt"`
	DeletedAt   *string       `json:"deletedAt"`
}

// InvoiceItem is the invoice item of api/openapi.yaml. Quantity is a JSON number
// written from the fixed-point quantity (62, 1.5, 0.125), never through
// float64.
type InvoiceItem struct {
	ID          string      `json:"id"`
	Title       string      `json:"title"`
	Description string      `json:"description"`
	Quantity    json.Number `json:"quantity"`
	UnitCost    int64       `json:"unitCost"`
	TotalCost   int64       `json:"totalCost"`
}

// InvoiceOf is inv as the API shows it.
func InvoiceOf(inv *invoicing.Invoice) Invoice {
	items := inv.Items()
	out := Invoice{
		ID: inv.ID(), Status: string(inv.Status()), Name: inv.Name(), Notes: inv.Notes(),
		DueDate: FormatTime(inv.DueDate()), Items: make([]InvoiceItem, len(items)),
		TotalAmount: inv.TotalAmount(), Currency: inv.Currency(),
		CreatedAt: FormatTime(inv.CreatedAt()), UpdatedAt: FormatTime(inv.UpdatedAt()),
		DeletedAt: FormatTimePtr(inv.DeletedAt()),
	}
	for i, it := range items {
		out.Items[i] = InvoiceItem{
			ID: it.ID(), Title: it.Title(), Description: it.Description(),
			Quantity: json.Number(it.Quantity().String()), UnitCost: it.UnitCost(), TotalCost: it.TotalCost(),
		}
	}
	return out
}
