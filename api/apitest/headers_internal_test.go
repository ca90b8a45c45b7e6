package apitest

import (
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// A response header is declared required (checked on every answer) or says when it is sent;
// one declared with neither is refused, so that a promise of the document cannot go unchecked.
func TestHeadersDecided(t *testing.T) {
	doc := func(header string) *openapi3.T {
		t.Helper()
		d, err := openapi3.NewLoader().LoadFromData([]byte(`openapi: 3.1.0
info: {title: t, version: v0}
paths:
  /x:
    get:
      responses:
        '200':
          description: ok
          headers:
            Cache-Control:
              ` + header + `
              schema: {type: string}
`))
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	if err := headersDecided(doc("required: true")); err != nil {
		t.Errorf("a required header: %v", err)
	}
	if err := headersDecided(doc("x-sent-when: the moon is full")); err != nil {
		t.Errorf("a conditional header: %v", err)
	}
	err := headersDecided(doc("description: never cached"))
	if err == nil || !strings.Contains(err.Error(), "GET /x 200 Cache-Control") {
		t.Errorf("an undecided header: %v, want it named", err)
	}
}
