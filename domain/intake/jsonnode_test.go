package intake_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// jsonNode is a JSON value with its object members in order: kind is
// '{', '[', '"', '0' (a number), 't', 'f' or 'z' (null); 0 when absent.
type jsonNode struct {
	kind    byte
	members []struct {
		name  string
		value jsonNode
	}
	elems []jsonNode
	str   string
	raw   []byte // a string's text as the body has it, quotes included
	num   json.Number
}

func parseNode(t testing.TB, dec *json.Decoder, body []byte) jsonNode {
	start := dec.InputOffset()
	tok, err := dec.Token()
	if err != nil {
		t.Fatalf("token of valid JSON: %v", err)
	}
	switch v := tok.(type) {
	case json.Delim:
		n := jsonNode{kind: byte(v)}
		for dec.More() {
			if v == '[' {
				n.elems = append(n.elems, parseNode(t, dec, body))
				continue
			}
			name, _ := dec.Token()
			n.members = append(n.members, struct {
				name  string
				value jsonNode
			}{name.(string), parseNode(t, dec, body)})
		}
		_, _ = dec.Token()
		return n
	case string:
		return jsonNode{kind: '"', str: v, raw: body[start:dec.InputOffset()]}
	case json.Number:
		return jsonNode{kind: '0', num: v}
	case bool:
		if v {
			return jsonNode{kind: 't'}
		}
		return jsonNode{kind: 'f'}
	}
	return jsonNode{kind: 'z'}
}

// mapped returns the members of an object by the names given, matched
// case-insensitively (the last of a name given twice).
func (n jsonNode) mapped(names ...string) map[string]jsonNode {
	out := map[string]jsonNode{}
	for _, mb := range n.members {
		for _, name := range names {
			if strings.EqualFold(mb.name, name) {
				out[name] = mb.value
			}
		}
	}
	return out
}

// count is how many members of an object have name, matched
// case-insensitively.
func (n jsonNode) count(name string) int {
	c := 0
	for _, mb := range n.members {
		if strings.EqualFold(mb.name, name) {
			c++
		}
	}
	return c
}

// repaired tells whether the token stream replaced something of a string
// by U+FFFD: the decoded string has more of it than the body wrote, as the
// character itself or as the escape \ufffd.
func (n jsonNode) repaired() bool {
	written := strings.Count(strings.ToValidUTF8(string(n.raw), ""), "\uFFFD")
	for i := 0; i < len(n.raw); i++ {
		if n.raw[i] != '\\' {
			continue
		}
		if n.raw[i+1] == 'u' && strings.EqualFold(string(n.raw[i+2:i+6]), "fffd") {
			written++
		}
		i++
	}
	return strings.Count(n.str, "\uFFFD") > written
}

// integer reads a JSON number as a 64-bit integer from its digits.
func (n jsonNode) integer() (int64, bool) {
	if n.kind != '0' {
		return 0, false
	}
	v, err := strconv.ParseInt(n.num.String(), 10, 64)
	return v, err == nil
}
