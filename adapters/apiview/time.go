package apiview

import "time"

// timeLayout is the API's timestamp (api/openapi.yaml): RFC 3339, UTC, milliseconds.
const timeLayout = "2006-01-02T15:04:05.000Z"

// FormatTime writes t in UTC with milliseconds.
func FormatTime(t time.Time) string {
	return t.UTC().Format(timeLayout)
}

// FormatTimePtr is FormatTime for optional times; nil stays nil (JSON null).
func FormatTimePtr(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := FormatTime(*t)
	return &s
}

// optional is s, or nil (JSON null) for the empty string.
func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
