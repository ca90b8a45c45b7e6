package httpapi

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/acme3pl/fulfillment/application"
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
	p := ReadQuery(q)
	page := p.Page()
	return page, p.Err()
}

// QueryParams reads a request's query parameters into typed values and
// collects what is wrong with them, so that a handler reads every parameter
// and then checks once (Err). A parameter that is present must hold a valid
// value (an empty one included); a repeated one counts by its last value.
type QueryParams struct {
	q    url.Values
	errs []error
}

// ReadQuery starts reading the query q.
func ReadQuery(q url.Values) *QueryParams { return &QueryParams{q: q} }

// Page reads skip and take (defaults 0 and DefaultTake).
func (p *QueryParams) Page() ports.Page { return p.PageUpTo(MaxTake) }

// PageUpTo reads skip and take, take at most maxTake.
func (p *QueryParams) PageUpTo(maxTake int) ports.Page {
	page := ports.Page{Skip: 0, Take: DefaultTake}
	ReadParam(p, "skip", intFrom("skip", 0, maxSkip), &page.Skip)
	ReadParam(p, "take", intFrom("take", 1, maxTake), &page.Take)
	return page
}

// intFrom parses the parameter name: an integer from lo to hi.
func intFrom(name string, lo, hi int) func(string) (int, error) {
	return func(s string) (int, error) {
		n, err := strconv.Atoi(s)
		if err != nil || n < lo || n > hi {
			return 0, domain.Invalid(name, "must be an integer from %d to %d", lo, hi)
		}
		return n, nil
	}
}

// Err is nil when every parameter read was valid, else their errors joined
// in the order they were read: the answer names the first (ProblemFor).
func (p *QueryParams) Err() error { return errors.Join(p.errs...) }

// ReadParam parses the parameter name with parse into dst when it is
// present, and keeps parse's error when it fails (dst is then unchanged).
func ReadParam[T any](p *QueryParams, name string, parse func(string) (T, error), dst *T) {
	v, ok := p.q[name]
	if !ok {
		return
	}
	x, err := parse(Last(v))
	if err != nil {
		p.errs = append(p.errs, err)
		return
	}
	*dst = x
}

// Last is the value of a repeated parameter that counts: its last.
func Last(v []string) string { return v[len(v)-1] }

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

// WritePage answers 200 with res, the page of a list asked for: each
// record as view renders it, and the next page's Link when more records
// follow.
func WritePage[T, DTO any](w http.ResponseWriter, r *http.Request, page ports.Page, res application.Page[T], view func(T) DTO) {
	out := make([]DTO, len(res.Items))
	for i, rec := range res.Items {
		out[i] = view(rec)
	}
	SetNextLink(w, r, page, res.More)
	WriteJSON(w, http.StatusOK, out)
}
