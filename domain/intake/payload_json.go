package intake

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/acme3pl/fulfillment/domain"
)

// A payload struct (orderPayload and the structs it holds) is read by one
// walk over the body's JSON tokens with encoding/json's Decoder, driven by
// its fields' json tags: the tag names the member, the field's Go type is
// the JSON type the member must have — string, bool, int64, a struct (an
// object), a slice of structs (an array of objects), each maybe behind a
// pointer so that null or absent stays apart from a zero value, or
// json.RawMessage for a value kept as sent whatever its type. Members are
// matched to fields as encoding/json matches them (exactly, else
// case-insensitively with Unicode simple folding), a member not in the
// struct is skipped unread whatever it holds, and null leaves a field as
// if the member were absent. Besides decoding, the walk finds what
// encoding/json would decode by guessing: a member given twice in its
// object (encoding/json merges the two), a string member that is not valid
// UTF-8 (encoding/json replaces the bytes by U+FFFD).

// payloadFaults is what a walk found wrong with a body, besides what it
// decoded.
type payloadFaults struct {
	notJSON   bool // not JSON at all (what json.Valid refuses)
	notObject bool // JSON, neither an object nor null
	// mistyped is the first member, in the body's order, of another JSON
	// type than its field's (null is never mistyped).
	mistyped *domain.ValidationError
	// unclear is the first member, in the body's order, that occurs twice
	// in its object or is a string that is not valid UTF-8.
	unclear *domain.ValidationError
	// repeated holds the top level's fields (bit k: field k) that occur
	// more than once.
	repeated uint64
	top      *payloadPlan
}

// repeatedAtTop tells whether the top-level member name occurs more than
// once.
func (f payloadFaults) repeatedAtTop(name string) bool {
	k := f.top.field(name)
	return k >= 0 && f.repeated&(1<<k) != 0
}

// refusal is the first member refused, a mistyped one before an unclear
// one (encoding/json's type errors came first); nil when none is.
func (f payloadFaults) refusal() error {
	if f.mistyped != nil {
		return f.mistyped
	}
	if f.unclear != nil {
		return f.unclear
	}
	return nil
}

// maxNesting is how deep encoding/json nests arrays and objects (its
// scanner's maxNestingDepth): a body nested deeper is not JSON to it.
const maxNesting = 10000

// errTooDeep is a body nested deeper than maxNesting.
var errTooDeep = errors.New("exceeded max depth")

// decodePayload decodes body into v, a struct of plan, by one walk over
// its tokens (read from a spaced copy of it, payload_bytes.go), and
// returns what it found wrong. A member given twice or of
// the wrong type is left as if it were absent, so that what a refusal
// carries (decoded from other members) was read unambiguously.
func decodePayload(body []byte, v reflect.Value, plan *payloadPlan) payloadFaults {
	body = spaced(body)
	w := payloadWalk{dec: json.NewDecoder(bytes.NewReader(body)), body: body}
	w.faults.top = plan
	var err error
	if w.next() == '{' {
		if _, err = w.dec.Token(); err == nil {
			w.faults.repeated, err = w.object(v, plan)
		}
	} else {
		var raw []byte
		raw, err = w.value(&skipped{})
		w.faults.notObject = err == nil && string(raw) != "null" // null reads as an object without members
	}
	if err == nil {
		// Nothing but white space after the value.
		if _, err = w.dec.Token(); errors.Is(err, io.EOF) {
			err = nil
		} else if err == nil {
			err = errors.New("a second value")
		}
	}
	if err != nil {
		return payloadFaults{notJSON: true, top: plan}
	}
	return w.faults
}

// payloadWalk is one walk over a body's tokens.
type payloadWalk struct {
	dec    *json.Decoder
	body   []byte
	depth  int           // arrays and objects open around the value read
	path   []payloadStep // the members (and elements) of objects the walk is in
	faults payloadFaults
}

// payloadStep is an object or array member the walk is in; index is the
// element's for an array's element, -1 otherwise.
type payloadStep struct {
	name  string
	index int
}

// skipped is a value read and thrown away (a member not mapped).
type skipped struct{}

func (*skipped) UnmarshalJSON([]byte) error { return nil }

// object walks the members of the object whose '{' was just read, into v
// (a struct of plan), through its '}', and returns its fields that occur
// more than once.
func (w *payloadWalk) object(v reflect.Value, plan *payloadPlan) (repeated uint64, err error) {
	w.depth++
	var seen, mistyped uint64
	for w.dec.More() {
		tok, err := w.dec.Token()
		if err != nil {
			return 0, err
		}
		name, _ := tok.(string) // in a member's place the decoder reads a name or fails
		k := plan.field(name)
		if k < 0 {
			if err := w.skip(); err != nil {
				return 0, err
			}
			continue
		}
		f := &plan.fields[k]
		bit := uint64(1) << k
		if seen&bit != 0 {
			repeated |= bit
			w.unclear(f.name, "occurs more than once")
		}
		seen |= bit
		ok, err := w.member(v.Field(f.index), f)
		if err != nil {
			return 0, err
		}
		if !ok {
			mistyped |= bit
		}
	}
	if _, err := w.dec.Token(); err != nil { // }
		return 0, err
	}
	w.depth--
	for k, f := range plan.fields {
		if (repeated|mistyped)&(1<<k) != 0 {
			v.Field(f.index).SetZero()
		}
	}
	return repeated, nil
}

// member reads the value of member f into fv, walking an object or an
// array of objects; false when it is of the wrong JSON type.
func (w *payloadWalk) member(fv reflect.Value, f *payloadField) (ok bool, err error) {
	switch c := w.next(); {
	case f.kind == payloadObject && c == '{':
		if _, err := w.dec.Token(); err != nil {
			return false, err
		}
		if f.ptr {
			if fv.IsNil() {
				fv.Set(reflect.New(fv.Type().Elem()))
			}
			fv = fv.Elem()
		}
		w.path = append(w.path, payloadStep{name: f.name, index: -1})
		_, err = w.object(fv, f.elem)
		w.path = w.path[:len(w.path)-1]
		return true, err
	case f.kind == payloadArray && c == '[':
		return true, w.array(fv, f)
	case f.kind == payloadRaw:
		raw, err := w.value(&skipped{})
		fv.SetBytes(raw)
		return true, err
	}
	raw, err := w.value(fv.Addr().Interface())
	switch {
	case err != nil && isTypeError(err):
		w.mistyped(f.name, f.kind.jsonType())
		return false, nil
	case err != nil:
		return false, err
	case f.kind == payloadString && raw[0] == '"' && !validJSONText(raw[1:len(raw)-1]):
		w.unclear(f.name, "must be valid UTF-8")
	}
	return true, nil
}

// array walks the array of objects whose '[' is next into fv, the field
// of f, through its ']'.
func (w *payloadWalk) array(fv reflect.Value, f *payloadField) error {
	if _, err := w.dec.Token(); err != nil {
		return err
	}
	w.depth++
	st := fv.Type()
	if f.ptr {
		st = st.Elem()
	}
	s := reflect.MakeSlice(st, 0, 0)
	zero := reflect.Zero(st.Elem())
	for i := 0; w.dec.More(); i++ {
		s = reflect.Append(s, zero)
		ev := s.Index(i)
		w.path = append(w.path, payloadStep{name: f.name, index: i})
		var err error
		if w.next() == '{' {
			if _, err = w.dec.Token(); err == nil {
				_, err = w.object(ev, f.elem)
			}
		} else {
			if _, err = w.value(ev.Addr().Interface()); err != nil && isTypeError(err) {
				w.mistyped("", payloadObject.jsonType())
				err = nil
			}
		}
		w.path = w.path[:len(w.path)-1]
		if err != nil {
			return err
		}
	}
	if _, err := w.dec.Token(); err != nil { // ]
		return err
	}
	w.depth--
	if f.ptr {
		p := reflect.New(st)
		p.Elem().Set(s)
		s = p
	}
	fv.Set(s)
	return nil
}

// value decodes the next value into target (encoding/json's rules: a
// *json.UnmarshalTypeError when it is of another type) and returns its
// text as the body has it.
func (w *payloadWalk) value(target any) ([]byte, error) {
	start := w.dec.InputOffset()
	err := w.dec.Decode(target)
	if target == nil && isNilTarget(err) {
		err = nil // skip's: the value was read
	}
	if err != nil && !isTypeError(err) {
		return nil, err
	}
	raw := trimSeparators(w.body[start:w.dec.InputOffset()])
	// The decoder's scanner counts the nesting from the value; the body's
	// counts the arrays and objects around it too. A value deep enough to
	// matter is at least two bytes per level.
	if w.depth+len(raw)/2 > maxNesting && w.depth+nesting(raw) > maxNesting {
		return nil, errTooDeep
	}
	return raw, err
}

// skip reads the next value and throws it away. An array or an object is
// read once, by the decoder's reading of its extent: Decode(nil) reads the
// value, then refuses the nil target, which spares the second pass over it
// that decoding into a target makes (should a decoder refuse nil before
// reading, the value is read into a target after all).
func (w *payloadWalk) skip() error {
	if c := w.next(); c == '{' || c == '[' {
		start := w.dec.InputOffset()
		if _, err := w.value(nil); err != nil || w.dec.InputOffset() > start {
			return err
		}
	}
	_, err := w.value(&skipped{})
	return err
}

// isNilTarget tells whether err is Decode's refusal of a nil target.
func isNilTarget(err error) bool {
	var iu *json.InvalidUnmarshalError
	return errors.As(err, &iu)
}

// isTypeError tells whether err is encoding/json's refusal of a value of
// another JSON type than its target's.
func isTypeError(err error) bool {
	var te *json.UnmarshalTypeError
	return errors.As(err, &te)
}

// next is the first byte of the next value or member (0 at the end),
// which the decoder has not read yet.
func (w *payloadWalk) next() byte {
	rest := trimSeparators(w.body[w.dec.InputOffset():])
	if len(rest) == 0 {
		return 0
	}
	return rest[0]
}

// mistyped keeps the first member of the wrong JSON type, named as
// encoding/json names it: its path without indices (line_items.sku), or
// the array's member for an element (line_items).
func (w *payloadWalk) mistyped(member, kind string) {
	if w.faults.mistyped != nil {
		return
	}
	var b strings.Builder
	for _, s := range w.path {
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s.name)
	}
	if member != "" {
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(member)
	}
	w.faults.mistyped = &domain.ValidationError{Field: b.String(), Reason: "must be " + kind}
}

// unclear keeps the first member repeated or not valid UTF-8, named with
// the indices of the elements it is in (line_items[1].sku).
func (w *payloadWalk) unclear(member, reason string) {
	if w.faults.unclear != nil {
		return
	}
	var b strings.Builder
	for _, s := range w.path {
		b.WriteString(s.name)
		if s.index >= 0 {
			fmt.Fprintf(&b, "[%d]", s.index)
		}
		b.WriteByte('.')
	}
	b.WriteString(member)
	w.faults.unclear = &domain.ValidationError{Field: b.String(), Reason: reason}
}
