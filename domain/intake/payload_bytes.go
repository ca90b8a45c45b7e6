package intake

import (
	"bytes"
	"unicode/utf8"
)

// The bytes the walk (payload_json.go) reads as the body has them.

// spaced is body with a space before each ',', ':', '}' and ']' outside
// its strings: the same JSON, or the same not JSON (white space between
// tokens means nothing; a string's bytes are left as they are), which
// encoding/json's Decoder reads with a few allocations fewer per value.
// It reads each value by itself, as if it stood alone, and a byte other
// than white space right after a number, a string or a literal makes it
// build an error (a *SyntaxError, its message quoted), which it then drops
// (golang/go#56299); the space spares the walk that error per member name
// and per value (docs/benchmarks.md, "The outer ring by context").
func spaced(body []byte) []byte {
	// Room for a space before every separator, in strings too: a bound
	// counted quickly.
	n := len(body)
	for _, c := range ",:}]" {
		n += bytes.Count(body, []byte{byte(c)})
	}
	out := make([]byte, 0, n)
	for i := 0; i < len(body); i++ {
		switch c := body[i]; c {
		case '"': // copy the string through its closing quote (or the body's end)
			j := i + 1
			for j < len(body) && body[j] != '"' {
				if body[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j+1, len(body))
			out = append(out, body[i:j]...)
			i = j - 1
		case ',', ':', '}', ']':
			out = append(out, ' ', c)
		default:
			out = append(out, c)
		}
	}
	return out
}

// trimSeparators cuts white space, ':' and ',' at the start of b: what
// stands between a token the decoder returned and the next.
func trimSeparators(b []byte) []byte {
	for len(b) > 0 {
		switch b[0] {
		case ' ', '\t', '\n', '\r', ':', ',':
			b = b[1:]
		default:
			return b
		}
	}
	return b
}

// nesting is how deep arrays and objects nest in raw, valid JSON.
func nesting(raw []byte) int {
	depth, most := 0, 0
	for i := 0; i < len(raw); i++ {
		switch raw[i] {
		case '"':
			for i++; raw[i] != '"'; i++ {
				if raw[i] == '\\' {
					i++
				}
			}
		case '{', '[':
			depth++
			most = max(most, depth)
		case '}', ']':
			depth--
		}
	}
	return most
}

// validJSONText tells whether a JSON string's raw contents (between the
// quotes) are valid UTF-8 whose escapes name Unicode scalar values: what
// encoding/json decodes without replacing anything by U+FFFD.
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
