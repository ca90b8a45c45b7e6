package intake

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/acme3pl/fulfillment/domain"
)

// The members of the order intake's mapping, by object: what checkMembers
// looks at. Strings are the members whose value is text.
var (
	orderMembers   = memberSet{names: []string{"id", "order_number", "test", "cancelled_at", "note", "shipping_address", "line_items"}, strings: 1<<3 | 1<<4}
	addressMembers = memberSet{names: []string{"name", "company", "address1", "address2", "city", "province_code", "zip", "country_code", "phone"}, strings: 1<<9 - 1}
	lineMembers    = memberSet{names: []string{"id", "sku", "quantity", "requires_shipping"}, strings: 1 << 1}
)

type memberSet struct {
	names   []string
	strings uint16 // bit i: names[i] holds text
}

// index is the position of name among the set's names, matched as
// encoding/json matches a member to a field (case-insensitively, Unicode
// simple folding); -1 when the member is not mapped.
func (m memberSet) index(name []byte) int {
	for i, n := range m.names {
		if equalFoldASCII(name, n) {
			return i
		}
	}
	for _, c := range name {
		if c == '\\' || c >= utf8.RuneSelf { // escaped or not ASCII: compare the name JSON means
			var s string
			if json.Unmarshal(append(append([]byte{'"'}, name...), '"'), &s) != nil {
				return -1
			}
			for i, n := range m.names {
				if strings.EqualFold(s, n) {
					return i
				}
			}
			return -1
		}
	}
	return -1
}

// equalFoldASCII compares an ASCII name with n, ignoring the case of letters.
func equalFoldASCII(name []byte, n string) bool {
	if len(name) != len(n) {
		return false
	}
	for i := range len(name) {
		a, b := name[i], n[i]
		if 'A' <= a && a <= 'Z' {
			a += 'a' - 'A'
		}
		if a != b {
			return false
		}
	}
	return true
}

// checkMembers refuses what encoding/json would decode by guessing: the
// first mapped member, in the body's order, that occurs twice in its object
// (the top level, shipping_address, a line item) or is a string that is
// not valid UTF-8 (invalid bytes, or an escaped UTF-16 surrogate without
// its pair), named as the intake names members. idRepeated reports a
// repeated id separately: no order can be recorded then. Members not
// mapped are skipped whatever they hold. body must be valid JSON.
func checkMembers(body []byte) (err *domain.ValidationError, idRepeated bool) {
	s := jsonScan{b: body}
	s.space()
	if s.i >= len(s.b) || s.b[s.i] != '{' {
		return nil, false // null
	}
	s.mapped(orderMembers, "", -1, &err, func(k int, repeated bool) {
		idRepeated = idRepeated || repeated && k == 0
		switch orderMembers.names[k] {
		case "shipping_address":
			s.members(addressMembers, "shipping_address", -1, &err)
		case "line_items":
			if s.b[s.i] != '[' {
				s.skip()
				return
			}
			s.array(func(i int) {
				s.members(lineMembers, "line_items", i, &err)
			})
		default:
			s.text(orderMembers, k, "", -1, &err)
		}
	})
	return err, idRepeated
}

// firstOf keeps the first problem found: member of the object named by
// parent (and index, when it is an element of that array; -1 when not).
func firstOf(first *domain.ValidationError, parent string, index int, member, reason string) *domain.ValidationError {
	if first != nil {
		return first
	}
	field := member
	switch {
	case index >= 0:
		field = fmt.Sprintf("%s[%d].%s", parent, index, member)
	case parent != "":
		field = parent + "." + member
	}
	return &domain.ValidationError{Field: field, Reason: reason}
}

// members checks an object value of mapped members (or skips any other
// value): a member repeated, a string not valid UTF-8. parent and index
// name the object, as firstOf takes them.
func (s *jsonScan) members(set memberSet, parent string, index int, err **domain.ValidationError) {
	if s.b[s.i] != '{' {
		s.skip()
		return
	}
	s.mapped(set, parent, index, err, func(k int, _ bool) {
		s.text(set, k, parent, index, err)
	})
}

// mapped scans an object, skipping the members not in set and refusing a
// member of set that occurs twice; value reads each mapped member's value
// (k its index in set; repeated, whether it occurred before).
func (s *jsonScan) mapped(set memberSet, parent string, index int, err **domain.ValidationError, value func(k int, repeated bool)) {
	var seen uint16
	s.object(func(name []byte) {
		k := set.index(name)
		if k < 0 {
			s.skip()
			return
		}
		repeated := seen&(1<<k) != 0
		if repeated {
			*err = firstOf(*err, parent, index, set.names[k], "occurs more than once")
		}
		seen |= 1 << k
		value(k, repeated)
	})
}

// text skips a member's value, refusing a mapped string that is not valid
// UTF-8.
func (s *jsonScan) text(set memberSet, k int, parent string, index int, err **domain.ValidationError) {
	if set.strings&(1<<k) == 0 || s.b[s.i] != '"' {
		s.skip()
		return
	}
	if !validJSONText(s.str()) {
		*err = firstOf(*err, parent, index, set.names[k], "must be valid UTF-8")
	}
}

// validJSONText tells whether a JSON string's raw contents (between the
// quotes) are valid UTF-8 whose escapes name Unicode scalar values: what
// encoding/json would decode without replacing anything by U+FFFD.
func validJSONText(raw []byte) bool {
	if !utf8.Valid(raw) {
		return false
	}
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' {
			continue
		}
		i++
		if raw[i] != 'u' {
			continue
		}
		r := hex4(raw[i+1:])
		i += 4
		switch {
		case r < 0xD800 || r > 0xDFFF:
		case r <= 0xDBFF && i+6 < len(raw) && raw[i+1] == '\\' && raw[i+2] == 'u' &&
			hex4(raw[i+3:]) >= 0xDC00 && hex4(raw[i+3:]) <= 0xDFFF:
			i += 6 // a surrogate pair
		default:
			return false
		}
	}
	return true
}

// hex4 reads the four hex digits of a \u escape (valid JSON).
func hex4(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		switch {
		case c <= '9':
			c -= '0'
		case c >= 'a':
			c -= 'a' - 10
		default:
			c -= 'A' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

// jsonScan walks valid JSON without decoding it.
type jsonScan struct {
	b []byte
	i int
}

func (s *jsonScan) space() {
	for s.i < len(s.b) && (s.b[s.i] == ' ' || s.b[s.i] == '\t' || s.b[s.i] == '\n' || s.b[s.i] == '\r') {
		s.i++
	}
}

// str reads the string at s.i and returns its raw contents.
func (s *jsonScan) str() []byte {
	start := s.i + 1
	for j := start; ; j++ {
		j += bytes.IndexByte(s.b[j:], '"')
		escapes := 0 // backslashes right before the quote: an odd number escapes it
		for k := j - 1; k >= start && s.b[k] == '\\'; k-- {
			escapes++
		}
		if escapes%2 == 0 {
			s.i = j + 1
			return s.b[start:j]
		}
	}
}

// skip steps over the value at s.i.
func (s *jsonScan) skip() {
	switch s.b[s.i] {
	case '"':
		s.str()
	case '{', '[':
		depth := 0
		for {
			switch s.b[s.i] {
			case '"':
				s.str()
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
			}
			s.i++
			if depth == 0 {
				return
			}
		}
	default: // a number, true, false, null
		for s.i < len(s.b) {
			switch s.b[s.i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return
			}
			s.i++
		}
	}
}

// object walks the object at s.i: f is called with each member's raw name,
// s.i at its value, and must step over the value.
func (s *jsonScan) object(f func(name []byte)) {
	s.elements('}', func(int) {
		name := s.str()
		s.space()
		s.i++ // :
		s.space()
		f(name)
	})
}

// array walks the array at s.i: f is called with each element's index, s.i
// at the element, and must step over it.
func (s *jsonScan) array(f func(i int)) { s.elements(']', f) }

// elements walks the object or array at s.i up to its end byte: f is
// called with each element's index (a member's for an object), s.i at it,
// and must step over it.
func (s *jsonScan) elements(end byte, f func(i int)) {
	s.i++ // { or [
	for n := 0; ; n++ {
		s.space()
		switch s.b[s.i] {
		case end:
			s.i++
			return
		case ',':
			s.i++
			s.space()
		}
		f(n)
	}
}
