package httpapi

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/ports"
)

// Limits of every list (api/openapi.yaml).
const (
	DefaultTake = 10
	MaxTake     = 10
	// maxSkip keeps OFFSET within what PostgreSQL answers quickly; a client
	// walking further uses filters.
	maxSkip = 1_000_000
)

// ParsePage reads skip and take strictly: anything but an integer in range
// is a *domain.ValidationError naming the parameter; nothing is clamped.
func ParsePage(q url.Values) (ports.Page, error) {
	page := ports.Page{Skip: 0, Take: DefaultTake}
	if v, ok := q["skip"]; ok {
		n, err := strconv.Atoi(last(v))
		if err != nil || n < 0 || n > maxSkip {
			return page, domain.Invalid("skip", "must be an integer from 0 to %d", maxSkip)
		}
		page.Skip = n
	}
	if v, ok := q["take"]; ok {
		n, err := strconv.Atoi(last(v))
		if err != nil || n < 1 || n > MaxTake {
			return page, domain.Invalid("take", "must be an integer from 1 to %d", MaxTake)
		}
		page.Take = n
	}
	return page, nil
}

func last(v []string) string { return v[len(v)-1] }

// SetNextLink adds `Link: <…>; rel="next"` with the same query and the next
// skip when more records follow the page.
func SetNextLink(w http.ResponseWriter, r *http.Request, page ports.Page, more bool) {
	if !more {
		return
	}
	q := r.URL.Query()
	q.Set("skip", strconv.Itoa(page.Skip+page.Take))
	q.Set("take", strconv.Itoa(page.Take))
	next := url.URL{Path: r.URL.Path, RawQuery: q.Encode()}
	w.Header().Set("Link", fmt.Sprintf(`<%s>; rel="next"`, next.String()))
}
