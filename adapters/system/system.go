// Package system implements the clock and ID ports on the real clock and on
// UUIDv7 (time-ordered, so new rows land at the end of their indexes).
package system

import (
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/acme3pl/fulfillment/ports"
)

// Clock is the wall clock.
type Clock struct{}

var _ ports.Clock = Clock{}

// Now returns the current time in UTC, truncated to microseconds, the
// precision PostgreSQL keeps.
func (Clock) Now() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }

// IDs makes IDs of the form prefix_<32 hex digits of a UUIDv7>.
type IDs struct{}

var _ ports.IDGenerator = IDs{}

// NewID returns a new ID such as "shp_0193a7…".
func (IDs) NewID(prefix string) string {
	id := uuid.Must(uuid.NewV7())
	return prefix + "_" + strings.ReplaceAll(id.String(), "-", "")
}
