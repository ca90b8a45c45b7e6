package postgres

import (
	"github.com/uptrace/bun"

	"github.com/acme3pl/fulfillment/ports"
)

// OrderReceiptRepository implements ports.OrderReceiptRepository.
type OrderReceiptRepository struct{ db bun.IDB }

var _ ports.OrderReceiptRepository = (*OrderReceiptRepository)(nil)
