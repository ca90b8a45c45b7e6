// Package api holds the service's interface document, openapi.yaml (OpenAPI 3.1, written by hand),
// and the renderer of its reference page (Redoc, as published on npm); both are embedded in the
// binary, which serves them without credentials.
package api

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"go.yaml.in/yaml/v3"
)

//go:embed openapi.yaml
var openAPIYAML []byte

// The Redoc bundle, unchanged from its npm package: scripts/fetch-redoc.sh re-fetches it and
// checks it against redoc/SHA256SUMS.
//
//go:embed redoc/redoc.standalone.js
var redocScript []byte

// YAML returns the document as written. The slice is shared: do not modify it.
func YAML() []byte { return openAPIYAML }

// RedocScript returns the Redoc standalone bundle. The slice is shared: do not modify it.
func RedocScript() []byte { return redocScript }

// JSON returns the document converted to JSON, members in the order the YAML gives them, so
// that /openapi.json and /openapi.yaml are the same document. Anchors and aliases are refused:
// the document does not use them, and JSON has no equivalent.
func JSON() ([]byte, error) {
	b, err := toJSON(openAPIYAML)
	if err != nil {
		return nil, fmt.Errorf("api/openapi.yaml: %w", err)
	}
	return b, nil
}

// toJSON converts one YAML document to indented JSON.
func toJSON(data []byte) ([]byte, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc, more yaml.Node
	if err := dec.Decode(&doc); err != nil {
		return nil, err
	}
	if err := dec.Decode(&more); !errors.Is(err, io.EOF) {
		return nil, errors.New("want exactly one YAML document")
	}
	var buf bytes.Buffer
	if err := writeJSON(&buf, &doc); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, buf.Bytes(), "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// writeJSON writes the YAML node n as JSON. Mapping keys are written as strings whatever their
// YAML type (OpenAPI's status codes are keys); scalars keep their YAML type, except timestamps,
// which stay the text written.
func writeJSON(buf *bytes.Buffer, n *yaml.Node) error {
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) != 1 {
			return errors.New("empty document")
		}
		return writeJSON(buf, n.Content[0])
	case yaml.MappingNode:
		return writeJoined(buf, '{', '}', len(n.Content)/2, func(i int) error {
			k, v := n.Content[2*i], n.Content[2*i+1]
			if k.Kind != yaml.ScalarNode || k.Tag == "!!merge" {
				return fmt.Errorf("line %d: only plain keys are supported", k.Line)
			}
			if err := writeValue(buf, k.Value); err != nil {
				return err
			}
			buf.WriteByte(':')
			return writeJSON(buf, v)
		})
	case yaml.SequenceNode:
		return writeJoined(buf, '[', ']', len(n.Content), func(i int) error { return writeJSON(buf, n.Content[i]) })
	case yaml.ScalarNode:
		if n.Anchor != "" {
			return fmt.Errorf("line %d: anchors are not supported", n.Line)
		}
		var v any
		switch n.Tag {
		case "!!str", "!!timestamp", "!!binary":
			v = n.Value
		default: // !!null, !!bool, !!int, !!float
			if err := n.Decode(&v); err != nil {
				return fmt.Errorf("line %d: %w", n.Line, err)
			}
		}
		return writeValue(buf, v)
	}
	return fmt.Errorf("line %d: anchors and aliases are not supported", n.Line)
}

// writeJoined writes opening, the n elements that write writes separated by
// commas, and closing: a JSON object's members or an array's items.
func writeJoined(buf *bytes.Buffer, opening, closing byte, n int, write func(i int) error) error {
	buf.WriteByte(opening)
	for i := range n {
		if i > 0 {
			buf.WriteByte(',')
		}
		if err := write(i); err != nil {
			return err
		}
	}
	buf.WriteByte(closing)
	return nil
}

// writeValue writes v as JSON; <, > and & stay as they are (the document is not HTML).
func writeValue(buf *bytes.Buffer, v any) error {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	buf.Truncate(buf.Len() - 1) // Encode's newline
	return nil
}
