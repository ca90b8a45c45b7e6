package httpapi

import (
	"encoding/binary"
	"encoding/json"
	"math/bits"
	"strings"
	"unicode/utf8"
)

// The JSON reader of the storefront order (order_json.go): a scanner that
// walks a body once, validating it exactly as encoding/json's scanner does,
// and lets its user decode the members it maps and skip the others.

// maxJSONDepth is encoding/json's bound on nested arrays and objects.
const maxJSONDepth = 10000

// jsonScanner reads JSON in one pass, validating it as encoding/json does;
// its user decodes what it maps and skips the rest.
type jsonScanner struct {
	b     []byte
	i     int
	depth int
	bad   bool // a syntax error: nothing else counts

	// The first type error, as encoding/json reports it: the member's
	// dotted path and the JSON kind it must be.
	typeField, typeKind string
}

// end checks that nothing but white space follows the value and returns
// the scan's result.
func (s *jsonScanner) end() (valid bool, typeErr *typeError) {
	s.ws()
	if s.i < len(s.b) {
		s.bad = true
	}
	if s.bad {
		return false, nil
	}
	if s.typeKind != "" {
		return true, &typeError{field: s.typeField, kind: s.typeKind}
	}
	return true, nil
}

// stringInto decodes a string member into dst: null leaves dst alone, any
// other value is a type error.
func (s *jsonScanner) stringInto(dst *string, field string) {
	switch s.peek() {
	case '"':
		if v, ok := s.str(); ok {
			*dst = v
		}
	case 'n':
		s.skip()
	default:
		s.typeMismatch(field, "string")
	}
}

// typeMismatch records a type error (the first one counts) and skips the
// value.
func (s *jsonScanner) typeMismatch(field, kind string) {
	if s.typeKind == "" {
		s.typeField, s.typeKind = field, kind
	}
	s.skip()
}

// raw skips a value and returns its text.
func (s *jsonScanner) raw() []byte {
	start := s.i
	s.skip()
	if s.bad {
		return nil
	}
	return s.b[start:s.i]
}

// A memberName is an object member's name as the body spells it, quotes
// included.
type memberName struct {
	quoted []byte
	plain  bool // no escape, valid UTF-8
	ascii  bool // plain and ASCII only
}

// is reports whether the name matches the lower-case ASCII field name as
// encoding/json matches names: exactly or under Unicode case folding (so
// "SKU", and "ſku" with a long s, are sku).
func (m memberName) is(field string) bool {
	b := m.quoted[1 : len(m.quoted)-1]
	if !m.plain {
		var v string
		return json.Unmarshal(m.quoted, &v) == nil && strings.EqualFold(v, field)
	}
	if !m.ascii {
		// A non-ASCII letter may fold to an ASCII one (ſ to s, K to k).
		return strings.EqualFold(string(b), field)
	}
	if len(b) != len(field) {
		return false
	}
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != field[i] {
			return false
		}
	}
	return true
}

// openObject enters the object at s.i and returns its first member's name,
// positioned at its value; false when the object is empty (or malformed).
// The value must be consumed before nextMember.
func (s *jsonScanner) openObject() (memberName, bool) {
	if !s.push() {
		return memberName{}, false
	}
	s.i++ // {
	s.ws()
	if s.peek() == '}' {
		s.i++
		s.depth--
		return memberName{}, false
	}
	return s.memberName()
}

// nextMember moves past the separator after a member's value and returns
// the next member's name; false at the object's end (or on an error).
func (s *jsonScanner) nextMember() (memberName, bool) {
	if s.bad {
		return memberName{}, false
	}
	s.ws()
	switch s.peek() {
	case ',':
		s.i++
		return s.memberName()
	case '}':
		s.i++
		s.depth--
	default:
		s.bad = true
	}
	return memberName{}, false
}

func (s *jsonScanner) memberName() (memberName, bool) {
	s.ws()
	if s.peek() != '"' {
		s.bad = true
		return memberName{}, false
	}
	start := s.i
	plain, ascii := s.strEnd()
	name := memberName{quoted: s.b[start:s.i], plain: plain, ascii: ascii}
	s.ws()
	if s.bad || s.peek() != ':' {
		s.bad = true
		return memberName{}, false
	}
	s.i++
	s.ws()
	return name, true
}

// openArray enters the array at s.i, positioned at its first element;
// false when it is empty (or malformed). The element must be consumed
// before nextElement.
func (s *jsonScanner) openArray() bool {
	if !s.push() {
		return false
	}
	s.i++ // [
	s.ws()
	if s.peek() == ']' {
		s.i++
		s.depth--
		return false
	}
	return true
}

// nextElement moves past the separator after an element, positioned at
// the next one; false at the array's end (or on an error).
func (s *jsonScanner) nextElement() bool {
	if s.bad {
		return false
	}
	s.ws()
	switch s.peek() {
	case ',':
		s.i++
		s.ws()
		return true
	case ']':
		s.i++
		s.depth--
	default:
		s.bad = true
	}
	return false
}

// push enters an array or object, refusing one nested deeper than
// encoding/json allows.
func (s *jsonScanner) push() bool {
	s.depth++
	if s.depth > maxJSONDepth {
		s.bad = true
	}
	return !s.bad
}

// skip validates the value at s.i and moves past it.
func (s *jsonScanner) skip() {
	if s.bad {
		return
	}
	switch c := s.peek(); {
	case c == '{':
		for _, ok := s.openObject(); ok; _, ok = s.nextMember() {
			s.skip()
		}
	case c == '[':
		for ok := s.openArray(); ok; ok = s.nextElement() {
			s.skip()
		}
	case c == '"':
		s.strEnd()
	case c == '-' || ('0' <= c && c <= '9'):
		s.number()
	case c == 't':
		s.literal("true")
	case c == 'f':
		s.literal("false")
	case c == 'n':
		s.literal("null")
	default:
		s.bad = true
	}
}

func (s *jsonScanner) literal(lit string) {
	if len(s.b)-s.i < len(lit) || string(s.b[s.i:s.i+len(lit)]) != lit {
		s.bad = true
		return
	}
	s.i += len(lit)
}

// number moves past a number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *jsonScanner) number() {
	if s.peek() == '-' {
		s.i++
	}
	switch c := s.peek(); {
	case c == '0':
		s.i++
	case '1' <= c && c <= '9':
		s.digits()
	default:
		s.bad = true
		return
	}
	if s.peek() == '.' {
		s.i++
		if !s.digits() {
			s.bad = true
			return
		}
	}
	if c := s.peek(); c == 'e' || c == 'E' {
		s.i++
		if c := s.peek(); c == '+' || c == '-' {
			s.i++
		}
		if !s.digits() {
			s.bad = true
		}
	}
}

// digits moves past one or more digits, reporting whether there was one.
func (s *jsonScanner) digits() bool {
	start := s.i
	for s.i < len(s.b) && '0' <= s.b[s.i] && s.b[s.i] <= '9' {
		s.i++
	}
	return s.i > start
}

// str reads the string at s.i and returns its value as encoding/json
// decodes it: as it is when it has no escape and is valid UTF-8, else
// through encoding/json itself (escapes, invalid UTF-8 made U+FFFD).
func (s *jsonScanner) str() (string, bool) {
	start := s.i
	plain, _ := s.strEnd()
	if s.bad {
		return "", false
	}
	quoted := s.b[start:s.i]
	if plain {
		return string(quoted[1 : len(quoted)-1]), true
	}
	var v string
	if err := json.Unmarshal(quoted, &v); err != nil {
		s.bad = true
		return "", false
	}
	return v, true
}

// strEnd moves past the string at s.i, validating it, and reports whether
// it is plain (no escape, valid UTF-8) and, if so, ASCII only.
func (s *jsonScanner) strEnd() (plain, ascii bool) {
	plain, ascii = true, true
	b, i := s.b, s.i+1 // past the opening quote; locals keep the loop in registers
	for i < len(b) {
		// Eight bytes at a time to the first that needs a look.
		if i+8 <= len(b) {
			m := needsLook(binary.LittleEndian.Uint64(b[i:]))
			if m == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(m) / 8
		}
		c := b[i]
		switch {
		case c == '"':
			s.i = i + 1
			return plain, plain && ascii
		case c < 0x20:
			s.i, s.bad = i, true
			return false, false
		case c == '\\':
			plain = false
			s.i = i + 1
			if !s.escape() {
				s.bad = true
				return false, false
			}
			i = s.i
		case c < utf8.RuneSelf:
			i++
		default:
			ascii = false
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 {
				plain = false
			}
			i += size
		}
	}
	s.i, s.bad = i, true // unterminated
	return false, false
}

// needsLook marks, in the high bit of each of the eight bytes of x (b[i]
// in the lowest), those that end a run of plain string characters: a
// quote, a backslash, a control character or a byte of a multi-byte UTF-8
// sequence. Bytes above the lowest one marked may be marked wrongly (a
// borrow carries upwards), never those below it, and it is itself right;
// so the lowest mark is the first such byte, and no mark means none.
func needsLook(x uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	quote, backslash := x^(ones*'"'), x^(ones*'\\')
	return ((x - ones*0x20) | (quote-ones)&^quote | (backslash-ones)&^backslash | x) & highs
}

// escape moves past the escape after a backslash.
func (s *jsonScanner) escape() bool {
	switch s.peek() {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		s.i++
		return true
	case 'u':
		if s.i+5 > len(s.b) {
			return false
		}
		for _, h := range s.b[s.i+1 : s.i+5] {
			if !isHex(h) {
				return false
			}
		}
		s.i += 5
		return true
	}
	return false
}

// ws moves past white space as JSON defines it.
func (s *jsonScanner) ws() {
	b, i := s.b, s.i
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\t' || b[i] == '\r') {
		i++
	}
	s.i = i
}

// peek returns the byte at s.i, or 0 at the end.
func (s *jsonScanner) peek() byte {
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
