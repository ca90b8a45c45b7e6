package apitest_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/acme3pl/fulfillment/api/apitest"
)

const traceID = "4bf92f3577b34da6a3ce929d0e0e4736"

func newValidator(t *testing.T) *apitest.Validator {
	t.Helper()
	v, err := apitest.New()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// headers builds a header from name/value pairs; every answer carries X-Trace-Id unless the
// pairs set it otherwise ("" removes a header).
func headers(kv ...string) http.Header {
	h := http.Header{"X-Trace-Id": {traceID}}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == "" {
			h.Del(kv[i])
			continue
		}
		h.Set(kv[i], kv[i+1])
	}
	return h
}

const (
	notFound = `{"type":"about:blank","title":"Not Found","status":404,"detail":"no such route","code":"not_found","traceId":"` + traceID + `"}`
	receipt  = `{"orderId":"5726128734520","orderNumber":null,"status":"failed","attempts":1,"lastError":"missing_shipping_address",` +
		`"shipmentId":null,"skipped":null,"traceId":"` + traceID + `","firstReceivedAt":"2026-11-23T14:34:10.900Z","lastReceivedAt":"2026-11-23T14:34:10.900Z",` +
		`"payloadKept":true,"payloadBytes":412}`
)

func TestCheck(t *testing.T) {
	v := newValidator(t)
	problemJSON := []string{"Content-Type", "application/problem+json", "Cache-Control", "no-store"}
	appJSON := []string{"Content-Type", "application/json"}
	receiptJSON := []string{"Content-Type", "application/json", "Cache-Control", "no-store"}
	tests := []struct {
		name         string
		method, path string
		status       int
		header       http.Header
		body         string
		wantErr      string // "" for an answer the document describes
	}{
		{"documented", "GET", "/healthz", 200, headers(appJSON...), `{"status":"ok"}`, ""},
		{"undocumented status", "GET", "/healthz", 500, headers(appJSON...), `{"status":"ok"}`, "status 500 is not documented"},
		{"undocumented header", "GET", "/healthz", 200, headers(append(appJSON, "X-Powered-By", "go")...), `{"status":"ok"}`, "header X-Powered-By is not documented"},
		{"required header missing", "GET", "/healthz", 200, headers(append(appJSON, "X-Trace-Id", "")...), `{"status":"ok"}`, `"X-Trace-Id" missing`},
		{"header against its schema", "GET", "/healthz", 200, headers(append(appJSON, "X-Trace-Id", "nope")...), `{"status":"ok"}`, `"X-Trace-Id" doesn't match`},
		{"undocumented member", "GET", "/healthz", 200, headers(appJSON...), `{"status":"ok","uptime":3}`, "additional properties"},
		{"wrong value", "GET", "/healthz", 200, headers(appJSON...), `{"status":"fine"}`, "doesn't match schema"},
		{"undocumented content type", "GET", "/healthz", 200, headers("Content-Type", "text/plain"), `ok`, `Content-Type has unexpected value: "text/plain"`},
		{"storefront IDs are digit strings", "GET", "/v0/storefront/orders/5726128734520", 200, headers(receiptJSON...),
			strings.Replace(receipt, `"5726128734520"`, `5726128734520`, 1), "doesn't match schema"},
		{"timestamps are date-times", "GET", "/v0/storefront/orders/5726128734520", 200, headers(receiptJSON...),
			strings.Replace(receipt, `"2026-11-23T14:34:10.900Z"`, `"yesterday"`, 1), "doesn't match schema"},
		{"receipt", "GET", "/v0/storefront/orders/5726128734520", 200, headers(receiptJSON...), receipt, ""},
		{"receipt without the Cache-Control it promises", "GET", "/v0/storefront/orders/5726128734520", 200, headers(appJSON...), receipt,
			`"Cache-Control" missing`},
		{"receipts", "GET", "/v0/storefront/orders?status=failed", 200, headers(receiptJSON...), "[" + receipt + "]", ""},
		{"receipts without the Cache-Control they promise", "GET", "/v0/storefront/orders?status=failed", 200, headers(appJSON...), "[" + receipt + "]",
			`"Cache-Control" missing`},
		{"unknown path", "GET", "/v0/nowhere", 404, headers(problemJSON...), notFound, ""},
		{"unknown path answered 200", "GET", "/v0/nowhere", 200, headers(appJSON...), `{}`, "status 200 is not documented"},
		{"unknown method", "DELETE", "/v0/warehouses", 405, headers(append(problemJSON, "Allow", "GET")...),
			strings.NewReplacer("Not Found", "Method Not Allowed", "404", "405", "no such route", "this path accepts GET", "not_found", "method_not_allowed").Replace(notFound), ""},
		{"unknown method without Allow", "DELETE", "/v0/warehouses", 405, headers(problemJSON...),
			strings.NewReplacer("Not Found", "Method Not Allowed", "404", "405", "not_found", "method_not_allowed").Replace(notFound), `"Allow" missing`},
		{"a path of another method does not hide a template of this one", "GET", "/v0/shipments/pick-pack", 404,
			headers(problemJSON...), strings.Replace(notFound, "no such route", "no such shipment", 1), ""},
		{"a template is matched with its method", "GET", "/v0/shipments/pick-pack", 405, headers(append(problemJSON, "Allow", "POST")...),
			strings.NewReplacer("Not Found", "Method Not Allowed", "404", "405", "not_found", "method_not_allowed").Replace(notFound), "status 405 is not documented"},
		{"a listed path without the method", "PUT", "/v0/shipments/pick-pack", 405, headers(append(problemJSON, "Allow", "POST")...),
			strings.NewReplacer("Not Found", "Method Not Allowed", "404", "405", "not_found", "method_not_allowed").Replace(notFound), ""},
		{"HEAD", "HEAD", "/healthz", 200, headers(appJSON...), "", ""},
		{"HEAD with an undocumented header", "HEAD", "/healthz", 200, headers(append(appJSON, "Set-Cookie", "a=b")...), "", "header Set-Cookie is not documented"},
		{"HEAD without a required header", "HEAD", "/readyz", 503, headers(append(problemJSON, "Retry-After", "")...), "", `"Retry-After" missing`},
		{"304", "GET", "/docs", 304, headers("ETag", `"0123abcd"`, "Cache-Control", "no-cache"), "", ""},
		{"304 without ETag", "GET", "/docs", 304, headers("Cache-Control", "no-cache"), "", `"ETag" missing`},
		{"304 with a body", "GET", "/docs", 304, headers("ETag", `"0123abcd"`, "Cache-Control", "no-cache"), "<html>", "a body"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest(tt.method, tt.path, nil)
			err := v.Check(req, tt.status, tt.header, []byte(tt.body))
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tt.wantErr != "" && err == nil:
				t.Fatalf("no error, want one containing %q", tt.wantErr)
			case tt.wantErr != "" && !strings.Contains(err.Error(), tt.wantErr):
				t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
	if un := v.Unexercised(); len(un) == 0 || len(un) == len(v.Operations()) {
		t.Fatalf("unexercised %v of %v: coverage is not counted", un, v.Operations())
	}
}

// TestTransport: answers of the hosts the transport checks reach the caller unchanged when the
// document describes them, and become errors (kept in Failures) when it does not; other hosts,
// and a host no longer checked, pass unchecked.
func TestTransport(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Trace-Id", traceID)
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/healthz" {
			_, _ = io.WriteString(w, `{"status":"ok"}`)
			return
		}
		_, _ = io.WriteString(w, `{"status":"ready","extra":true}`)
	}))
	defer srv.Close()
	tr := &apitest.Transport{Base: http.DefaultTransport, Validator: newValidator(t)}
	client := &http.Client{Transport: tr}

	get := func(path string) (string, error) {
		resp, err := client.Get(srv.URL + path)
		if err != nil {
			return "", err
		}
		defer func() { _ = resp.Body.Close() }()
		b, err := io.ReadAll(resp.Body)
		return string(b), err
	}
	if _, err := get("/readyz"); err != nil {
		t.Fatalf("an unchecked host was checked: %v", err)
	}
	u, _ := url.Parse(srv.URL)
	tr.Check(u.Host)
	if body, err := get("/healthz"); err != nil || body != `{"status":"ok"}` {
		t.Fatalf("body %q, err %v", body, err)
	}
	if _, err := get("/readyz"); err == nil || !strings.Contains(err.Error(), "does not match api/openapi.yaml") {
		t.Fatalf("err %v, want a mismatch", err)
	}
	if f := tr.Failures(); len(f) != 1 || !strings.Contains(f[0], "GET /readyz → 200") {
		t.Fatalf("failures %q", f)
	}
	tr.Uncheck(u.Host)
	if _, err := get("/readyz"); err != nil {
		t.Fatalf("a host no longer checked was checked: %v", err)
	}
}
