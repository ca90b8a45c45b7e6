package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/domain"
)

// Strict JSON for request bodies: one way to read a body, to name the member
// a decoding error is about, and to read an integer exactly.

// readJSON decodes the request body into dst strictly: the content type must
// be application/json (a charset parameter, if any, utf-8), the body one
// JSON object with no unknown members. Malformed bodies are
// *domain.ValidationError naming the member, or `body`.
func readJSON(r *http.Request, dst any) error {
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/json" {
		return application.ErrUnsupportedMediaType
	}
	if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") {
		return application.ErrUnsupportedMediaType
	}
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		if errors.Is(err, io.EOF) {
			return domain.Invalid("body", "a JSON object is required")
		}
		return jsonError("", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return application.ErrPayloadTooLarge
		}
		return domain.Invalid("body", "must hold exactly one JSON object")
	}
	return nil
}

// strictUnmarshal decodes one JSON value with no unknown members.
func strictUnmarshal(raw []byte, dst any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	return dec.Decode(dst)
}

// jsonError turns a decoding error into a *domain.ValidationError naming the
// member (prefixed with at, the path of the value decoded), or
// application.ErrPayloadTooLarge.
func jsonError(at string, err error) error {
	join := func(name string) string {
		switch {
		case at == "" && name == "":
			return "body"
		case at == "":
			return name
		case name == "":
			return at
		}
		return at + "." + name
	}
	var tooLarge *http.MaxBytesError
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &tooLarge):
		return application.ErrPayloadTooLarge
	case errors.As(err, &typeErr):
		if typeErr.Field == "" {
			return domain.Invalid(join(""), "must be a JSON object")
		}
		return domain.Invalid(join(typeErr.Field), "must not be a JSON %s", typeErr.Value)
	case errors.As(err, &syntaxErr), errors.Is(err, io.ErrUnexpectedEOF):
		return domain.Invalid(join(""), "is not valid JSON")
	}
	// encoding/json has no typed error for unknown members.
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		if unq, uerr := strconv.Unquote(name); uerr == nil {
			name = unq
		}
		return domain.Invalid(join(name), "is not a member of this body")
	}
	return domain.Invalid(join(""), "is not valid JSON")
}

// jsonInt is a JSON integer decoded exactly into an int64 from its digits
// (Shopify's IDs exceed 2^53, which float64 cannot hold). Anything else — a
// fraction, an exponent, a string, out of range — is kept as invalid, so
// the decoder can name the field.
type jsonInt struct {
	Value   int64
	Set     bool // a valid integer was given
	Invalid bool // a value other than null and an integer was given
}

// UnmarshalJSON implements json.Unmarshaler; it never fails, so that one
// bad number does not hide the rest of the document.
func (n *jsonInt) UnmarshalJSON(b []byte) error {
	*n = jsonInt{}
	if string(b) == "null" {
		return nil
	}
	// A bad number marks the field invalid instead of failing the decode.
	if v, err := strconv.ParseInt(string(b), 10, 64); err == nil {
		n.Value, n.Set = v, true
	} else {
		n.Invalid = true
	}
	return nil
}

func (n jsonInt) positive() bool { return n.Set && n.Value > 0 }

func (n jsonInt) ptr() *int64 {
	if !n.Set {
		return nil
	}
	v := n.Value
	return &v
}

// isLiteral reports whether raw is the JSON literal lit, white space aside.
func isLiteral(raw json.RawMessage, lit string) bool {
	return string(bytes.TrimSpace(raw)) == lit
}
