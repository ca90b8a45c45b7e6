package api_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/acme3pl/fulfillment/api"
)

// TestJSONIsTheSameDocument: /openapi.json and /openapi.yaml must mean the same to an OpenAPI
// tool. Both are loaded by kin-openapi and compared member by member.
func TestJSONIsTheSameDocument(t *testing.T) {
	j, err := api.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(j) {
		t.Fatal("JSON() is not JSON")
	}
	fromYAML := load(t, api.YAML())
	fromJSON := load(t, j)
	a, _ := json.Marshal(fromYAML)
	b, _ := json.Marshal(fromJSON)
	if !bytes.Equal(a, b) {
		t.Fatalf("the JSON document differs from the YAML one:\nyaml %.400s\njson %.400s", a, b)
	}
	// Members keep the order written (paths as the YAML lists them).
	if strings.Index(string(j), `"/v0/warehouses"`) > strings.Index(string(j), `"/healthz"`) {
		t.Fatal("the JSON document does not keep the order of the YAML")
	}
}

func load(t *testing.T, data []byte) *openapi3.T {
	t.Helper()
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(data)
	if err != nil {
		t.Fatal(err)
	}
	// Validation includes the examples against their schemas.
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("not a valid OpenAPI document: %v", err)
	}
	if !doc.IsOpenAPI31OrLater() {
		t.Fatalf("openapi %s, want 3.1", doc.OpenAPI)
	}
	return doc
}

// TestRedocScriptIsTheOneOfNPM: the embedded renderer is the file scripts/fetch-redoc.sh
// fetched and checked, unmodified.
func TestRedocScriptIsTheOneOfNPM(t *testing.T) {
	f, err := os.Open("redoc/SHA256SUMS")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	want := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if sum, name, ok := strings.Cut(sc.Text(), "  "); ok && name == "redoc.standalone.js" {
			want = sum
		}
	}
	if want == "" {
		t.Fatal("redoc/SHA256SUMS has no line for redoc.standalone.js")
	}
	sum := sha256.Sum256(api.RedocScript())
	if got := hex.EncodeToString(sum[:]); got != want {
		t.Fatalf("the embedded redoc.standalone.js has SHA-256 %s, redoc/SHA256SUMS says %s: run scripts/fetch-redoc.sh", got, want)
	}
}

// TestJSONRefusesWhatJSONCannotSay: anchors, aliases and several documents have no JSON
// equivalent, so the conversion refuses them rather than guessing; keys become strings and
// timestamps stay as written.
func TestJSONRefusesWhatJSONCannotSay(t *testing.T) {
	for name, doc := range map[string]string{
		"alias": "a: &x 1\nb: *x\n",
		"merge": "a: &x {c: 1}\nb:\n  <<: *x\n",
		"two":   "a: 1\n---\nb: 2\n",
	} {
		if _, err := api.ConvertToJSON([]byte(doc)); err == nil {
			t.Errorf("%s: converted without error", name)
		}
	}
	got, err := api.ConvertToJSON([]byte("200: {x: 2026-01-01T00:00:00Z, y: null, z: [1, 1.5, true, '<&>']}\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"200":{"x":"2026-01-01T00:00:00Z","y":null,"z":[1,1.5,true,"<&>"]}}`
	if compact := compactJSON(t, got); compact != want {
		t.Fatalf("got %s, want %s", compact, want)
	}
}

func compactJSON(t *testing.T, b []byte) string {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}
