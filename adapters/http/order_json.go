package httpapi

import "slices"

// The storefront's order is ~5 KB of JSON of which the intake maps a few
// members. encoding/json reads it twice, a validating pass and then the
// decoding one, each through its byte-at-a-time state machine: about a
// tenth of the server's CPU per order. jsonScanner reads it once and gives
// the answer encoding/json.Unmarshal into orderPayload gives for every
// input: the same syntax (RFC 8259, at most 10,000 nested arrays and
// objects), member names matched case-insensitively as encoding/json does, a
// repeated member applied again, null leaving a string alone, the first type
// error by its dotted path, a syntax error anywhere winning over any type
// error. Strings with escapes or invalid UTF-8 are rare and left to
// encoding/json itself. order_json_internal_test.go holds the scanner to
// encoding/json's answers (seeds at the edges, 10,000 mutated bodies, a fuzz
// target).

// typeError is the first member of the wrong JSON type: its dotted path
// (empty for the body itself) and the kind of JSON value it must be.
type typeError struct{ field, kind string }

// scanOrder decodes body into p as json.Unmarshal(body, p) does. It reports
// whether the body is valid JSON and, if so, the first type error (nil when
// there is none).
func scanOrder(body []byte, p *orderPayload) (valid bool, typeErr *typeError) {
	s := &jsonScanner{b: body}
	s.ws()
	switch s.peek() {
	case '{':
		for name, ok := s.openObject(); ok; name, ok = s.nextMember() {
			switch {
			case name.is("id"):
				p.ID.fromRaw(s.raw())
			case name.is("order_number"):
				p.OrderNumber.fromRaw(s.raw())
			case name.is("test"):
				p.Test = s.raw()
			case name.is("cancelled_at"):
				p.CancelledAt = s.raw()
			case name.is("note"):
				s.stringInto(&p.Note, "note")
			case name.is("shipping_address"):
				p.ShippingAddress = s.raw()
			case name.is("line_items"):
				s.lineItems(p)
			default:
				s.skip()
			}
		}
	case 'n':
		s.skip() // null: nothing to decode
	default:
		s.typeMismatch("", "object")
	}
	return s.end()
}

// scanAddress decodes a shipping address (valid JSON, an object) into a as
// json.Unmarshal does, returning the first type error.
func scanAddress(raw []byte, a *addressPayload) *typeError {
	fields := [...]struct {
		name string
		dst  *string
	}{
		{"name", &a.Name}, {"company", &a.Company}, {"address1", &a.Address1}, {"address2", &a.Address2},
		{"city", &a.City}, {"province_code", &a.ProvinceCode}, {"zip", &a.Zip},
		{"country_code", &a.CountryCode}, {"phone", &a.Phone},
	}
	s := &jsonScanner{b: raw}
	s.ws()
	for name, ok := s.openObject(); ok; name, ok = s.nextMember() {
		i := 0
		for i < len(fields) && !name.is(fields[i].name) {
			i++
		}
		if i < len(fields) {
			s.stringInto(fields[i].dst, fields[i].name)
		} else {
			s.skip()
		}
	}
	_, typeErr := s.end()
	return typeErr
}

// lineItems decodes the line_items member as encoding/json decodes a
// *[]lineItemPayload: null clears it; an array is decoded into the slice
// already there (a repeated member), element by element, into what its
// capacity holds, then cut to the array's length.
func (s *jsonScanner) lineItems(p *orderPayload) {
	switch s.peek() {
	case 'n':
		s.skip()
		p.LineItems = nil
		return
	case '[':
	default:
		s.typeMismatch("line_items", "array")
		return
	}
	if p.LineItems == nil {
		p.LineItems = new([]lineItemPayload)
	}
	items, n := *p.LineItems, 0
	for ok := s.openArray(); ok; ok = s.nextElement() {
		if n >= cap(items) {
			items = slices.Grow(items, 1)
		}
		if n >= len(items) {
			items = items[:n+1]
		}
		s.lineItem(&items[n])
		n++
	}
	if n == 0 {
		items = []lineItemPayload{}
	}
	*p.LineItems = items[:n]
}

// lineItem decodes one element of line_items into l.
func (s *jsonScanner) lineItem(l *lineItemPayload) {
	switch s.peek() {
	case 'n':
		s.skip()
		return
	case '{':
	default:
		s.typeMismatch("line_items", "object")
		return
	}
	for name, ok := s.openObject(); ok; name, ok = s.nextMember() {
		switch {
		case name.is("id"):
			l.ID.fromRaw(s.raw())
		case name.is("sku"):
			s.stringInto(&l.SKU, "line_items.sku")
		case name.is("quantity"):
			l.Quantity.fromRaw(s.raw())
		case name.is("requires_shipping"):
			l.RequiresShipping = s.raw()
		default:
			s.skip()
		}
	}
}

// fromRaw sets n from a value's text as its UnmarshalJSON does.
func (n *jsonInt) fromRaw(raw []byte) {
	if raw != nil {
		_ = n.UnmarshalJSON(raw)
	}
}
