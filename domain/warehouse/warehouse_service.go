package warehouse

import (
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/shipping"
)

// MaxServiceMilli bounds a service's quantity, in thousandths: 1,000,000,000
// units, like every quantity of the service.
const MaxServiceMilli = shipping.MaxLineQuantity * 1000

// MaxServiceCodeChars bounds a service code, MaxServiceNoteChars a note.
const (
	MaxServiceCodeChars = 64
	MaxServiceNoteChars = 1000
)

// ServiceRecord is a service a warehouse performed for an organization
// (kitting, labour hours, special packaging), reported under the
// warehouse's reference, which is the idempotency key per warehouse. The
// quantity is in thousandths: 1.5 labour hours is 1500.
type ServiceRecord struct {
	report
	service       string
	quantityMilli int64
	note          string
}

// ServiceReport is a service as the warehouse reports it, the input of
// NewServiceRecord. QuantityMilli is in thousandths; PerformedAt nil means
// now.
type ServiceReport struct {
	WarehouseID    string
	OrganizationID string
	Reference      string
	Service        string
	QuantityMilli  int64
	PerformedAt    *time.Time
	Note           string
}

// NewServiceRecord validates r and returns the service id, made now. It
// checks, in the order of the body's members:
// organizationId, reference (1–64 characters), service (1–64 characters),
// quantity (positive, at most MaxServiceMilli thousandths), performedAt (not
// in the future), note (at most 1000 characters). Whether the service is one
// of the organization's rate card is the use case's to check.
func NewServiceRecord(id string, now time.Time, r ServiceReport) (*ServiceRecord, error) {
	if err := checkReport("service", id, r.WarehouseID, r.OrganizationID, r.Reference); err != nil {
		return nil, err
	}
	if n := utf8.RuneCountInString(r.Service); n < 1 || n > MaxServiceCodeChars || !utf8.ValidString(r.Service) ||
		strings.TrimSpace(r.Service) != r.Service {
		return nil, domain.Invalid("service", "must be a service code of 1 to %d characters", MaxServiceCodeChars)
	}
	if err := shipping.CheckText("service", r.Service); err != nil {
		return nil, err
	}
	if r.QuantityMilli < 1 || r.QuantityMilli > MaxServiceMilli {
		return nil, domain.Invalid("quantity", "must be a number above 0 and at most %d, with at most three decimals", shipping.MaxLineQuantity)
	}
	now = now.UTC().Truncate(time.Millisecond)
	at, given, err := reportedAt("performedAt", r.PerformedAt, now)
	if err != nil {
		return nil, err
	}
	if utf8.RuneCountInString(r.Note) > MaxServiceNoteChars || !utf8.ValidString(r.Note) {
		return nil, domain.Invalid("note", "must be at most %d characters", MaxServiceNoteChars)
	}
	if err := shipping.CheckText("note", r.Note); err != nil {
		return nil, err
	}
	return &ServiceRecord{report: report{
		id: id, warehouseID: r.WarehouseID, organizationID: r.OrganizationID, reference: r.Reference,
		at: at, atGiven: given, createdAt: now,
	}, service: r.Service, quantityMilli: r.QuantityMilli, note: r.Note}, nil
}

// SameContent tells whether other reports the same service as s: the same
// organization, service, quantity and note, and, when s's time was given,
// the same time.
func (s *ServiceRecord) SameContent(other *ServiceRecord) bool {
	if s.organizationID != other.organizationID || s.service != other.service ||
		s.quantityMilli != other.quantityMilli || s.note != other.note {
		return false
	}
	return s.sameTime(&other.report)
}

// ParseMilli reads a decimal number as written in JSON (`2`, `1.5`,
// `0.125`, `1.5e1`) exactly, in thousandths, never through a float. It
// refuses a negative number, more than three decimals, and anything above
// MaxServiceMilli thousandths. field names the member in the error.
func ParseMilli(field, text string) (int64, error) {
	bad := domain.Invalid(field, "must be a number above 0 and at most %d, with at most three decimals", shipping.MaxLineQuantity)
	mant, exp, hasExp := strings.Cut(strings.ToLower(text), "e")
	whole, frac, hasDot := strings.Cut(mant, ".")
	if whole == "" || !allDigits(whole) || (hasDot && (frac == "" || !allDigits(frac))) {
		return 0, bad
	}
	scale := len(frac) // value = digits × 10^-scale
	if hasExp {
		sign := 1
		switch {
		case strings.HasPrefix(exp, "-"):
			sign, exp = -1, exp[1:]
		case strings.HasPrefix(exp, "+"):
			exp = exp[1:]
		}
		if exp == "" || !allDigits(exp) {
			return 0, bad
		}
		exp = strings.TrimLeft(exp, "0")
		if len(exp) > 4 {
			return 0, bad // far beyond every bound, either way
		}
		e := 0
		for _, c := range exp {
			e = e*10 + int(c-'0')
		}
		scale -= sign * e
	}
	digits := strings.TrimLeft(whole+frac, "0")
	// thousandths = digits × 10^(3 - scale)
	shift := 3 - scale
	if shift < 0 {
		cut := -shift
		if cut > len(digits) {
			cut = len(digits)
		}
		if strings.Trim(digits[len(digits)-cut:], "0") != "" {
			return 0, bad // more than three decimals
		}
		digits, shift = digits[:len(digits)-cut], 0
	}
	if len(digits)+shift > 13 { // MaxServiceMilli has 13 digits
		return 0, bad
	}
	var n int64
	for _, c := range digits {
		n = n*10 + int64(c-'0')
	}
	for range shift {
		n *= 10
	}
	if n < 1 || n > MaxServiceMilli {
		return 0, bad
	}
	return n, nil
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// FormatMilli writes thousandths as a decimal with no trailing zeros:
// 1500 → "1.5", 2000 → "2".
func FormatMilli(n int64) string {
	sign := ""
	if n < 0 {
		sign, n = "-", -n
	}
	s := strconv.FormatInt(n/1000, 10)
	if frac := n % 1000; frac != 0 {
		s += "." + strings.TrimRight(strconv.FormatInt(frac+1000, 10)[1:], "0")
	}
	return sign + s
}

// RehydrateServiceRecordParams are a stored service's fields.
type RehydrateServiceRecordParams struct {
	ID, WarehouseID, OrganizationID, Reference, Service string
	QuantityMilli                                       int64
	PerformedAt                                         time.Time
	PerformedAtGiven                                    bool
	Note                                                string
	CreatedAt                                           time.Time
}

// RehydrateServiceRecord rebuilds a stored service without validation:
// only the postgres adapter calls it.
func RehydrateServiceRecord(p RehydrateServiceRecordParams) *ServiceRecord {
	return &ServiceRecord{report: report{
		id: p.ID, warehouseID: p.WarehouseID, organizationID: p.OrganizationID, reference: p.Reference,
		at: p.PerformedAt.UTC(), atGiven: p.PerformedAtGiven, createdAt: p.CreatedAt.UTC(),
	}, service: p.Service, quantityMilli: p.QuantityMilli, note: p.Note}
}

// Accessors.
func (s *ServiceRecord) Service() string        { return s.service }
func (s *ServiceRecord) QuantityMilli() int64   { return s.quantityMilli }
func (s *ServiceRecord) PerformedAt() time.Time { return s.at }
func (s *ServiceRecord) PerformedAtGiven() bool { return s.atGiven }
func (s *ServiceRecord) Note() string           { return s.note }
