package main

import (
	"net/url"

	invoicinghttp "github.com/acme3pl/fulfillment/adapters/httpapi/invoicing"
	invoicingapp "github.com/acme3pl/fulfillment/application/invoicing"
	"github.com/acme3pl/fulfillment/domain/invoicing"
)

// shape is one kind of request of the benchmark: a list query, or the
// detail of an invoice when detail is set.
type shape struct {
	name   string
	query  url.Values
	detail bool
}

func q(kv ...string) url.Values {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Set(kv[i], kv[i+1])
	}
	return v
}

// shapes are the query shapes of the issues; the search terms fit the text
// gen makes with its default seed: "storage" is in about a third of the
// invoices, "pallet storage" in a quarter, "juneau" in one in a hundred,
// "anchorage" in one in a thousand (so ~10 at 10,000 and ~1,000 at
// 1,000,000), the tracking number in exactly one (invoice 6, the same in
// every database), "xylophone" and "ø" in none; "storage kitting",
// "pallet storage kitting" and "pallets × 99 days" in none either, though
// each of their words is common.
func shapes() []shape {
	s := []shape{{name: "default page", query: q()}}
	for _, st := range invoicing.VisibleInvoiceStatuses {
		s = append(s, shape{name: "status=" + string(st), query: q("status", string(st))})
	}
	for _, by := range []string{"createdAt", "updatedAt", "dueDate"} {
		for _, order := range []string{"asc", "desc"} {
			s = append(s, shape{name: "sortBy=" + by + "&sortOrder=" + order, query: q("sortBy", by, "sortOrder", order)})
		}
	}
	s = append(s,
		shape{name: "search common (storage)", query: q("search", "storage")},
		shape{name: "search rare word (anchorage)", query: q("search", "anchorage")},
		shape{name: "search one invoice (tracking no.)", query: q("search", "1ZX50TBYC1HFUJH3XP")},
		shape{name: "search no match (xylophone)", query: q("search", "xylophone")},
		shape{name: "search no match, common trigrams (storage kitting)", query: q("search", "storage kitting")},
		shape{name: "search no match, three common words (pallet storage kitting)", query: q("search", "pallet storage kitting")},
		shape{name: "search no match, words and numbers (pallets × 99 days)", query: q("search", "pallets × 99 days")},
		shape{name: "search common phrase (pallet storage)", query: q("search", "pallet storage")},
		shape{name: "search word in 1% (juneau)", query: q("search", "juneau")},
		shape{name: "search rare + status=collecting", query: q("search", "anchorage", "status", "collecting")},
		shape{name: "search common, sortBy=dueDate asc", query: q("search", "storage", "sortBy", "dueDate", "sortOrder", "asc")},
		shape{name: "search short common (pa)", query: q("search", "pa")},
		shape{name: "search short rare (ø)", query: q("search", "ø")},
		shape{name: "search short common, skip=1000", query: q("search", "pa", "skip", "1000")},
		shape{name: "skip=10000", query: q("skip", "10000")},
		shape{name: "detail", detail: true},
	)
	return s
}

// listQuery turns a shape's parameters into the use case's input with the
// HTTP adapter's own parser.
func listQuery(org string, v url.Values) (invoicingapp.ListInvoices, error) {
	in, err := invoicinghttp.ListInvoicesQuery(v)
	in.OrganizationID = org
	return in, err
}
