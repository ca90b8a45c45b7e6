package postgres

import (
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/acme3pl/fulfillment/ports"
)

// pgArray passes a Go slice as one PostgreSQL array parameter.
func pgArray(v any) any { return pgdialect.Array(v) }

// trimPage cuts the extra row a list query reads (LIMIT take+1) and reports
// whether it was there: whether more records follow the page.
func trimPage[T any](rows []T, page ports.Page) ([]T, bool) {
	if len(rows) > page.Take {
		return rows[:page.Take], true
	}
	return rows, false
}
