package postgres

import "github.com/uptrace/bun/dialect/pgdialect"

// pgArray passes a Go slice as one PostgreSQL array parameter.
func pgArray(v any) any { return pgdialect.Array(v) }
