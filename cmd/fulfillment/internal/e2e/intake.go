package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Helpers of the intake that tests of several end-to-end packages use: the
// samples of docs/samples, deliveries and their answers.

// IntakeSample is the sample order name of docs/samples.
func IntakeSample(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(RepoRoot, "docs", "samples", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// WithID returns a copy of a JSON order with another id (numbers kept
// exact) and the changes in set applied at the top level.
func WithID(t *testing.T, body []byte, id string, set map[string]any) []byte {
	t.Helper()
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	m["id"] = json.Number(id)
	for k, v := range set {
		m[k] = v
	}
	b := MustJSON(t, m)
	return b
}

// Deliver posts body to the intake of srv with the API key key.
func Deliver(t *testing.T, srv *Server, key string, body []byte, headers ...string) Response {
	t.Helper()
	h := append([]string{"Authorization", "Bearer " + key}, headers...)
	return Do(t, "POST", srv.URL+"/v0/storefront/orders", body, h...)
}

// IntakeAnswer is every member an intake body may carry.
type IntakeAnswer struct {
	Success     *bool    `json:"success"`
	ShipmentID  *string  `json:"shipmentId"`
	Duplicate   bool     `json:"duplicate"`
	Skipped     string   `json:"skipped"`
	Error       string   `json:"error"`
	Message     string   `json:"message"`
	SKUs        []string `json:"skus"`
	LineItemIDs []string `json:"lineItemIds"`
	Missing     []string `json:"missing"`
}

// IntakeJSON decodes an intake answer, failing t unless it is one.
func IntakeJSON(t *testing.T, r Response) IntakeAnswer {
	t.Helper()
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("Content-Type %q, want application/json: %d %s", ct, r.Status, r.Body)
	}
	var a IntakeAnswer
	r.JSON(t, &a)
	if a.Success == nil {
		t.Fatalf("no success member: %s", r.Body)
	}
	return a
}

// WantShipment checks that r created a shipment and returns its id.
func WantShipment(t *testing.T, r Response) string {
	t.Helper()
	if r.Status != 200 {
		t.Fatalf("status %d, want 200: %s", r.Status, r.Body)
	}
	a := IntakeJSON(t, r)
	if !*a.Success || a.ShipmentID == nil || !strings.HasPrefix(*a.ShipmentID, "shp_") || a.Duplicate {
		t.Fatalf("answer %s, want a new shipment", r.Body)
	}
	return *a.ShipmentID
}

// GetJSON sends GET path to srv with token and decodes a 200 answer into v.
func GetJSON(t *testing.T, srv *Server, path, token string, v any) Response {
	t.Helper()
	r := Do(t, "GET", srv.URL+path, nil, "Authorization", "Bearer "+token)
	if r.Status == 200 && v != nil {
		r.JSON(t, v)
	}
	return r
}
