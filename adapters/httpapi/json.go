package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
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

// ReadJSON decodes the request body into dst strictly: the content type must
// be application/json (a charset parameter, if any, utf-8), the body one
// JSON object with no unknown members. Malformed bodies are
// *domain.ValidationError naming the member, or `body`.
func ReadJSON(r *http.Request, dst any) error {
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

// JSONInteger reads a JSON integer of 64 bits from its digits, as
// encoding/json reads one into an int64 (never through float64); false for
// anything else: absent, null, a string, a fraction, out of range.
func JSONInteger(raw json.RawMessage) (int64, bool) {
	n, err := strconv.ParseInt(string(raw), 10, 64)
	return n, err == nil
}

// DecodeLines decodes each line of a body's lines member (a draft's items
// or cartons, a receipt's items) strictly as an L, naming a line that is
// not an object of its kind as member[i] or member[i].field, and maps it to
// the use case's line. An absent or null member is no lines.
func DecodeLines[L interface{ Line() T }, T any](member string, raws *[]json.RawMessage) ([]T, error) {
	if raws == nil {
		return nil, nil
	}
	lines := make([]T, len(*raws))
	for i, raw := range *raws {
		at := fmt.Sprintf("%s[%d]", member, i)
		var l L
		if err := strictUnmarshal(raw, &l); err != nil {
			return nil, jsonError(at, err)
		}
		if string(raw) == "null" {
			return nil, domain.Invalid(at, "must be an object")
		}
		lines[i] = l.Line()
	}
	return lines, nil
}
