package warehouse

import (
	"time"
	"unicode/utf8"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/shipping"
)

// report is what every report of a warehouse (a receipt, a service)
// carries: its ID, the warehouse that reported it, the organization it is
// for, the warehouse's reference, the time of the fact (at; atGiven when
// the warehouse gave it rather than now) and when it was stored.
type report struct {
	id             string
	warehouseID    string
	organizationID string
	reference      string
	at             time.Time
	atGiven        bool
	createdAt      time.Time
}

// Accessors.
func (r *report) ID() string             { return r.id }
func (r *report) WarehouseID() string    { return r.warehouseID }
func (r *report) OrganizationID() string { return r.organizationID }
func (r *report) Reference() string      { return r.reference }
func (r *report) CreatedAt() time.Time   { return r.createdAt }

// Time is when the fact happened (a receipt's receivedAt, a service's
// performedAt); TimeGiven tells whether the warehouse gave it.
func (r *report) Time() time.Time { return r.at }
func (r *report) TimeGiven() bool { return r.atGiven }

// DateAfter dates a new report sent without its time at now, or at
// closedUntil when that is later (rounded up to the millisecond, the API's
// precision), when its time lies before closedUntil: it raced a close, and
// is dated when it is recorded, after the close, in the open period. Its
// createdAt moves with it. A report whose time was given keeps it. It
// tells whether the time changed.
func (r *report) DateAfter(now, closedUntil time.Time) bool {
	if r.atGiven || !r.at.Before(closedUntil) {
		return false
	}
	at := now.UTC().Truncate(time.Millisecond)
	if until := closedUntil.UTC(); at.Before(until) {
		at = until.Truncate(time.Millisecond)
		if at.Before(until) {
			at = at.Add(time.Millisecond)
		}
	}
	r.at = at
	if r.createdAt.Before(at) {
		r.createdAt = at
	}
	return true
}

// CheckReference refuses a reference that is empty, longer than
// MaxReferenceChars characters, or not text PostgreSQL can hold.
func CheckReference(ref string) error {
	if n := utf8.RuneCountInString(ref); n < 1 || n > MaxReferenceChars || !utf8.ValidString(ref) {
		return domain.Invalid("reference", "must be 1 to %d characters", MaxReferenceChars)
	}
	return shipping.CheckText("reference", ref)
}

// checkReport checks what every report of a warehouse (a receipt, a
// service) carries, in the order of the body's members: its ID and
// warehouse (the service's own, not the body's), organizationId and
// reference.
func checkReport(kind, id, warehouseID, organizationID, reference string) error {
	if !domain.ValidID(id) || !domain.ValidID(warehouseID) {
		return domain.Invalid(kind, "a %s needs an ID and a warehouse", kind)
	}
	if organizationID == "" {
		return domain.Invalid("organizationId", "is required")
	}
	return CheckReference(reference)
}

// sameTime tells whether a report's time matches the stored one's: a time
// the retry r gives must be the stored one; a retry that gives none (now)
// matches any.
func (r *report) sameTime(stored *report) bool {
	return !r.atGiven || (stored.atGiven && r.at.Equal(stored.at))
}

// reportedAt is the time of a fact the warehouse reports: given, or now. A
// given time may lie in the past (a WMS reporting late) but not after now.
func reportedAt(field string, given *time.Time, now time.Time) (time.Time, bool, error) {
	if given == nil {
		return now, false, nil
	}
	at := given.UTC().Truncate(time.Millisecond)
	if at.After(now) {
		return time.Time{}, false, domain.Invalid(field, "must not be in the future")
	}
	return at, true, nil
}
