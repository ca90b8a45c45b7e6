package domain

import (
	"time"
)

// UTCPtr is an optional time in UTC, as entities keep every time they hold.
func UTCPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}
