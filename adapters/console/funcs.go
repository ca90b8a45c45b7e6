package console

import (
	"fmt"
	"html/template"
	"strconv"
	"strings"
	"time"

	"github.com/acme3pl/fulfillment/domain/billing"
)

// funcs are the templates' functions: money from int64 cents exactly (never
// a float), times in UTC, ages in hours and minutes.
var funcs = template.FuncMap{
	"money":   money,
	"when":    when,
	"rfc3339": rfc3339,
	"age":     age,
	"query":   query,
	"needs":   needs,
	"reason":  reason,
}

// reasons say, for each error code a failed order can record
// (intakeapp.ReceiptErrorCodes), what went wrong and what fixes it, for
// the support agent who reads the failed order.
var reasons = map[string]string{
	"invalid_payload":          "The storefront sent an order the service cannot read. Replaying the same body fails again; ask the storefront's owner.",
	"unknown_skus":             "A line's SKU is not a product of the organization (its body below names the SKUs). Add the product, then replay.",
	"missing_sku":              "A line that needs shipping has no SKU. Ask the storefront to set it; replaying the same body fails again.",
	"missing_shipping_address": "The order has no shipping address. Replaying the same body fails again.",
	"no_warehouse":             "The organization has no active warehouse. Activate one, then replay.",
	"unavailable":              "The database could not be reached at the time. Replay it.",
	"internal":                 "The service failed on its own. Replay it; if it fails again, tell the engineers the order's ID.",
}

// reason is the sentence of an error code, or "" for none.
func reason(code string) string { return reasons[code] }

// roleNote is what the "needsrole" partial says: the role a page's
// actions need and the one the person has.
type roleNote struct{ Need, Have string }

func needs(need string, have fmt.Stringer) roleNote { return roleNote{Need: need, Have: have.String()} }

// money is cents as a person reads an amount: $1,234.56 USD, a credit
// -$500.00 USD. The service bills in US dollars.
func money(cents int64) string { return billing.Dollars(cents) + " USD" }

// when is a time as a person reads it, in UTC: 7 Dec 2026 18:50 UTC; the
// zero time is a dash.
func when(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2 Jan 2006 15:04 UTC")
}

// rfc3339 is a time for a <time datetime> attribute.
func rfc3339(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// age is a duration as a person reads a wait: "2 d 4 h", "3 h 12 min",
// "45 min", "under a minute".
func age(d time.Duration) string {
	if d < time.Minute {
		return "under a minute"
	}
	days, hours, mins := int(d/(24*time.Hour)), int(d%(24*time.Hour)/time.Hour), int(d%time.Hour/time.Minute)
	switch {
	case days > 0:
		return fmt.Sprintf("%d d %d h", days, hours)
	case hours > 0:
		return fmt.Sprintf("%d h %d min", hours, mins)
	}
	return fmt.Sprintf("%d min", mins)
}

// query builds a link's query string from pairs of names and values,
// leaving out the empty ones: {{query "org" .Org "skip" .Next}}.
func query(pairs ...any) template.URL {
	var b strings.Builder
	for i := 0; i+1 < len(pairs); i += 2 {
		var v string
		switch x := pairs[i+1].(type) {
		case string:
			v = x
		case int:
			if x == 0 {
				continue
			}
			v = strconv.Itoa(x)
		case int64:
			if x == 0 {
				continue
			}
			v = strconv.FormatInt(x, 10)
		default:
			v = fmt.Sprint(x)
		}
		if v == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('&')
		}
		b.WriteString(template.URLQueryEscaper(fmt.Sprint(pairs[i])))
		b.WriteByte('=')
		b.WriteString(template.URLQueryEscaper(v))
	}
	return template.URL("?" + b.String()) //nolint:gosec // every part is query-escaped above
}
