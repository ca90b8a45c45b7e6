// Package billing holds the rules of the invoices the service produces
// (docs/billing.md): rate cards and their fees, the arithmetic of a charge
// and of an invoice line, billing periods in the billing time zone, invoice
// keys and the statuses an operator may move an invoice to. It imports the
// standard library and the domain package only.
package billing

import (
	"fmt"
	"maps"
	"sort"
	"strings"
	"time"

	"github.com/acme3pl/fulfillment/domain"
)

// MaxCents bounds every fee and service cost: a billion dollars a unit, so
// that a line of a billion units never overflows int64 cents.
const MaxCents = 100_000_000_000

// Service is a priced service of a rate card (kitting, labour hours).
type Service struct {
	Title    string
	UnitCost int64
}

// RateCard is an organization's prices from a date on (in the billing time
// zone) until the next card's.
type RateCard struct {
	organizationID string
	effectiveFrom  Date
	fees           map[Fee]int64
	services       map[string]Service
}

// RateCardParams are the inputs of NewRateCard.
type RateCardParams struct {
	OrganizationID string
	EffectiveFrom  string // YYYY-MM-DD
	Fees           map[string]int64
	Services       map[string]Service
}

// NewRateCard validates p: a known organization ID, a calendar date, known
// fees from 0 to MaxCents, services with a code of 1–64 characters, a title
// and a cost from 0 to MaxCents.
func NewRateCard(p RateCardParams) (*RateCard, error) {
	if !domain.ValidID(p.OrganizationID) {
		return nil, domain.Invalid("organizationId", "%q is not a valid ID", p.OrganizationID)
	}
	from, err := ParseDate(p.EffectiveFrom)
	if err != nil {
		return nil, domain.Invalid("effectiveFrom", "%q is not a date YYYY-MM-DD", p.EffectiveFrom)
	}
	c := &RateCard{organizationID: p.OrganizationID, effectiveFrom: from,
		fees: make(map[Fee]int64, len(Fees)), services: make(map[string]Service, len(p.Services))}
	for name, cents := range p.Fees {
		fee, ok := parseFee(name)
		if !ok {
			return nil, domain.Invalid("fees", "%q is not a fee (one of %s)", name, feeNames())
		}
		if cents < 0 || cents > MaxCents {
			return nil, domain.Invalid("fees."+name, "must be from 0 to %d cents", int64(MaxCents))
		}
		c.fees[fee] = cents
	}
	for code, s := range p.Services {
		if code == "" || len(code) > 64 || strings.TrimSpace(code) != code {
			return nil, domain.Invalid("services", "%q is not a service code of 1 to 64 characters", code)
		}
		if strings.TrimSpace(s.Title) == "" {
			return nil, domain.Invalid("services."+code+".title", "must not be empty")
		}
		if s.UnitCost < 0 || s.UnitCost > MaxCents {
			return nil, domain.Invalid("services."+code+".unitCost", "must be from 0 to %d cents", int64(MaxCents))
		}
		c.services[code] = s
	}
	return c, nil
}

func parseFee(s string) (Fee, bool) {
	for _, f := range Fees {
		if string(f) == s {
			return f, true
		}
	}
	return "", false
}

func feeNames() string {
	names := make([]string, len(Fees))
	for i, f := range Fees {
		names[i] = string(f)
	}
	return strings.Join(names, ", ")
}

// Equal reports whether o is the same card: organization, first day,
// prices (a fee left out is 0) and services.
func (c *RateCard) Equal(o *RateCard) bool {
	if c.organizationID != o.organizationID || c.effectiveFrom != o.effectiveFrom || !maps.Equal(c.services, o.services) {
		return false
	}
	for _, f := range Fees {
		if c.Fee(f) != o.Fee(f) {
			return false
		}
	}
	return true
}

// OrganizationID is the card's organization.
func (c *RateCard) OrganizationID() string { return c.organizationID }

// EffectiveFrom is the first day the card applies.
func (c *RateCard) EffectiveFrom() Date { return c.effectiveFrom }

// Fee is the card's price of f; 0 when the card leaves it out.
func (c *RateCard) Fee(f Fee) int64 { return c.fees[f] }

// Service is the card's service of that code.
func (c *RateCard) Service(code string) (Service, bool) {
	s, ok := c.services[code]
	return s, ok
}

// ServiceCodes are the card's service codes, sorted.
func (c *RateCard) ServiceCodes() []string {
	codes := make([]string, 0, len(c.services))
	for code := range c.services {
		codes = append(codes, code)
	}
	sort.Strings(codes)
	return codes
}

// Date is a calendar day, without a time zone of its own.
type Date struct {
	Year  int
	Month time.Month
	Day   int
}

// ParseDate reads YYYY-MM-DD, refusing days that do not exist.
func ParseDate(s string) (Date, error) {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return Date{}, fmt.Errorf("date %q: %w", s, err)
	}
	return DateOf(t), nil
}

// DateOf is the calendar day of t in t's location.
func DateOf(t time.Time) Date {
	y, m, d := t.Date()
	return Date{y, m, d}
}

// String formats the date as YYYY-MM-DD.
func (d Date) String() string { return fmt.Sprintf("%04d-%02d-%02d", d.Year, d.Month, d.Day) }

// AddDays is the date n days later.
func (d Date) AddDays(n int) Date {
	return DateOf(time.Date(d.Year, d.Month, d.Day+n, 0, 0, 0, 0, time.UTC))
}

// Before reports whether d is an earlier day than e.
func (d Date) Before(e Date) bool { return d.String() < e.String() }
