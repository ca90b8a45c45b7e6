// Package apitest checks HTTP answers against the interface document, api/openapi.yaml: a
// Validator fails an answer whose status, headers, content type or body the document does not
// describe, and a Transport checks every answer a test's HTTP client receives.
//
// Only tests use it (it is the one package that imports kin-openapi, which the service binary
// never links).
package apitest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/acme3pl/fulfillment/api"
)

// transportHeaders are the headers of HTTP itself, which an answer may carry without the
// document naming them. Content-Type is checked against the documented media types.
var transportHeaders = map[string]bool{
	"Date": true, "Content-Length": true, "Content-Type": true, "Connection": true, "Keep-Alive": true,
	"Transfer-Encoding": true,
}

// Operation is one documented operation.
type Operation struct {
	Method, Path string // "GET", "/v0/invoices/{id}"
	ID, Summary  string // its operationId and summary
}

func (o Operation) String() string { return o.Method + " " + o.Path }

// Validator checks answers against the document. It is safe for concurrent use: checks are
// serialised, which also keeps kin-openapi's lazily built schema state race-free.
type Validator struct {
	doc *openapi3.T
	// kin-openapi's gorilla/mux routers: one per method over the paths that list it, as the
	// service's router matches a path and a method together, and one over every path.
	byMethod      map[string]routers.Router
	paths         routers.Router
	ops           []Operation
	unknownPath   *openapi3.ResponseRef // the answer to a path the document does not list
	unknownMethod *openapi3.ResponseRef // ... and to a method a listed path does not accept

	mu   sync.Mutex
	seen map[string]map[int]int // answers checked, per operation ("GET /healthz") and status
}

var registerDecoders sync.Once

// New loads api/openapi.yaml and checks that it is a valid OpenAPI document whose examples
// match their schemas.
func New() (*Validator, error) {
	registerDecoders.Do(func() {
		// The bodies of the documentation and metrics routes are text; kin-openapi decodes
		// JSON, YAML and text/plain by itself.
		for _, ct := range []string{"text/html", "text/javascript", "application/openmetrics-text"} {
			openapi3filter.RegisterBodyDecoder(ct, openapi3filter.PlainBodyDecoder)
		}
	})
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(api.YAML())
	if err != nil {
		return nil, fmt.Errorf("load api/openapi.yaml: %w", err)
	}
	if err := doc.Validate(loader.Context); err != nil {
		return nil, fmt.Errorf("api/openapi.yaml is not a valid OpenAPI document: %w", err)
	}
	if err := headersDecided(doc); err != nil {
		return nil, err
	}
	v := &Validator{doc: doc, byMethod: map[string]routers.Router{}, seen: map[string]map[int]int{}}
	if v.paths, err = gorillamux.NewRouter(doc); err != nil {
		return nil, fmt.Errorf("route api/openapi.yaml: %w", err)
	}
	byMethod := map[string]*openapi3.Paths{}
	for path, item := range doc.Paths.Map() {
		for method, o := range item.Operations() {
			v.ops = append(v.ops, Operation{Method: method, Path: path, ID: o.OperationID, Summary: o.Summary})
			if byMethod[method] == nil {
				byMethod[method] = openapi3.NewPaths()
			}
			byMethod[method].Set(path, item)
		}
	}
	for method, paths := range byMethod {
		only := &openapi3.T{OpenAPI: doc.OpenAPI, Info: doc.Info, Servers: doc.Servers, Paths: paths}
		if v.byMethod[method], err = gorillamux.NewRouter(only); err != nil {
			return nil, fmt.Errorf("route api/openapi.yaml: %w", err)
		}
	}
	sort.Slice(v.ops, func(i, j int) bool { return v.ops[i].String() < v.ops[j].String() })
	if v.unknownPath, err = v.unmatched("unknownPath"); err != nil {
		return nil, err
	}
	if v.unknownMethod, err = v.unmatched("unknownMethod"); err != nil {
		return nil, err
	}
	return v, nil
}

// headersDecided checks that every response header the document declares is either required,
// and so checked on every answer (kin-openapi fails an answer that lacks a required header), or
// conditional, saying when it is sent in x-sent-when (Link: only when more records follow). A
// header an answer always carries and the document declares without either would go unchecked.
func headersDecided(doc *openapi3.T) error {
	var undecided []string
	for path, item := range doc.Paths.Map() {
		for method, o := range item.Operations() {
			for status, resp := range o.Responses.Map() {
				if resp.Value == nil {
					continue
				}
				for name, h := range resp.Value.Headers {
					if h.Value == nil || h.Value.Required || h.Value.Extensions["x-sent-when"] != nil {
						continue
					}
					undecided = append(undecided, fmt.Sprintf("%s %s %s %s", method, path, status, name))
				}
			}
		}
	}
	if len(undecided) > 0 {
		slices.Sort(undecided)
		return fmt.Errorf("api/openapi.yaml declares response headers neither `required: true` nor `x-sent-when`: %s",
			strings.Join(undecided, "; "))
	}
	return nil
}

// unmatched returns the response that x-unmatched-requests names for key.
func (v *Validator) unmatched(key string) (*openapi3.ResponseRef, error) {
	ext, _ := v.doc.Extensions["x-unmatched-requests"].(map[string]any)
	ref, _ := ext[key].(map[string]any)
	name, ok := strings.CutPrefix(fmt.Sprint(ref["$ref"]), "#/components/responses/")
	resp := v.doc.Components.Responses[name]
	if !ok || resp == nil {
		return nil, fmt.Errorf("api/openapi.yaml: x-unmatched-requests.%s must name a response of components/responses", key)
	}
	return resp, nil
}

// Operations returns every documented operation, sorted.
func (v *Validator) Operations() []Operation { return slices.Clone(v.ops) }

// Check fails unless the document describes the answer (status, header and body) to req. The
// answer of a request no operation matches is checked against x-unmatched-requests.
func (v *Validator) Check(req *http.Request, status int, header http.Header, body []byte) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	route, params, err := v.route(req)
	if err != nil {
		return err
	}
	if err := v.check(req, route, params, status, header, body); err != nil {
		return fmt.Errorf("%s %s → %d (%s): %w", req.Method, req.URL.RequestURI(), status, route.Operation.OperationID, err)
	}
	op := route.Method + " " + route.Path
	if v.seen[op] == nil {
		v.seen[op] = map[int]int{}
	}
	v.seen[op][status]++
	return nil
}

// route finds the documented operation of req the way the service's router (gorilla/mux)
// does, with kin-openapi's gorilla/mux router: the path the method's router matches (a path
// that lists another method does not hide a template that lists this one: GET
// /v0/shipments/pick-pack is GET /v0/shipments/{id}); a listed path without the method is an
// unknown method, no listed path an unknown path. One difference: kin's router matches the
// escaped path, so an encoded slash (/v0/invoices/a%2Fb) stays in its segment and names an
// invoice, where the service sees an unknown path; both answer the same NotFound problem.
func (v *Validator) route(req *http.Request) (*routers.Route, map[string]string, error) {
	if r := v.byMethod[req.Method]; r != nil {
		route, params, err := r.FindRoute(req)
		if err == nil {
			route.Spec = v.doc
			return route, params, nil
		}
		if !errors.Is(err, routers.ErrPathNotFound) {
			return nil, nil, err
		}
	}
	resp, status, name := v.unknownPath, http.StatusNotFound, "unknown path"
	if _, _, err := v.paths.FindRoute(req); !errors.Is(err, routers.ErrPathNotFound) {
		resp, status, name = v.unknownMethod, http.StatusMethodNotAllowed, "unknown method"
	}
	op := &openapi3.Operation{OperationID: name, Responses: openapi3.NewResponses(openapi3.WithStatus(status, resp))}
	return &routers.Route{Spec: v.doc, Path: "(" + name + ")", Method: req.Method, Operation: op}, nil, nil
}

func (v *Validator) check(req *http.Request, route *routers.Route, params map[string]string, status int, header http.Header, body []byte) error {
	resp := route.Operation.Responses.Status(status)
	if resp == nil || resp.Value == nil {
		return fmt.Errorf("status %d is not documented", status)
	}
	for name := range header {
		if transportHeaders[name] || documented(resp.Value.Headers, name) {
			continue
		}
		return fmt.Errorf("header %s is not documented on this answer", name)
	}
	bodiless := req.Method == http.MethodHead || status == http.StatusNotModified
	if len(resp.Value.Content) == 0 || bodiless {
		if len(body) > 0 {
			return fmt.Errorf("a body (%d bytes) where the document describes none", len(body))
		}
		// A HEAD answer carries the content type its GET would have.
		if ct := header.Get("Content-Type"); ct != "" && req.Method != http.MethodHead {
			return fmt.Errorf("a Content-Type (%q) where the document describes no body", ct)
		}
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route},
		Status:                 status,
		Header:                 header,
		Body:                   io.NopCloser(bytes.NewReader(body)),
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	if bodiless {
		// kin-openapi skips HEAD answers and 304 altogether: their documented headers are
		// checked as those of a 200 answer to a GET, without a body.
		get := req.Clone(req.Context())
		get.Method = http.MethodGet
		only := *route
		only.Operation = &openapi3.Operation{OperationID: route.Operation.OperationID,
			Responses: openapi3.NewResponses(openapi3.WithStatus(http.StatusOK, resp))}
		in.RequestValidationInput = &openapi3filter.RequestValidationInput{Request: get, PathParams: params, Route: &only}
		in.Status = http.StatusOK
		in.Options.ExcludeResponseBody = true
	}
	return openapi3filter.ValidateResponse(context.Background(), in)
}

func documented(headers openapi3.Headers, name string) bool {
	for k := range headers {
		if strings.EqualFold(k, name) {
			return true
		}
	}
	return false
}

// Unexercised returns the documented operations that no checked answer came from.
func (v *Validator) Unexercised() []Operation {
	v.mu.Lock()
	defer v.mu.Unlock()
	var out []Operation
	for _, op := range v.ops {
		if len(v.seen[op.String()]) == 0 {
			out = append(out, op)
		}
	}
	return out
}

// Coverage returns, per operation, the statuses checked so far ("GET /healthz 200×3 ...").
func (v *Validator) Coverage() string {
	v.mu.Lock()
	defer v.mu.Unlock()
	var b strings.Builder
	for _, op := range v.ops {
		fmt.Fprintf(&b, "  %-45s", op)
		seen := v.seen[op.String()]
		codes := slices.Sorted(maps.Keys(seen))
		for _, c := range codes {
			b.WriteString(" " + strconv.Itoa(c) + "×" + strconv.Itoa(seen[c]))
		}
		if len(codes) == 0 {
			b.WriteString(" never")
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// Transport is an http.RoundTripper that checks every answer from the hosts it is told about
// against the document. An answer the document does not describe becomes an error of the
// request, so the test that sent it fails at once, and is kept in Failures for tests that
// retry on errors. The body is read whole and handed on unchanged.
type Transport struct {
	Base      http.RoundTripper
	Validator *Validator

	mu       sync.Mutex
	hosts    map[string]bool
	failures []string
}

// Check makes the transport check the answers of host ("127.0.0.1:8080"). Answers of other
// hosts pass unchecked.
func (t *Transport) Check(host string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.hosts == nil {
		t.hosts = map[string]bool{}
	}
	t.hosts[host] = true
}

// Uncheck stops checking host: a server gone from its port, which another process (a tool the
// tests start on a free port) may take next.
func (t *Transport) Uncheck(host string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.hosts, host)
}

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.Base.RoundTrip(req)
	t.mu.Lock()
	checked := t.hosts[req.URL.Host]
	t.mu.Unlock()
	if err != nil || !checked {
		return resp, err
	}
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if err := t.Validator.Check(req, resp.StatusCode, resp.Header, body); err != nil {
		t.mu.Lock()
		t.failures = append(t.failures, err.Error())
		t.mu.Unlock()
		return nil, fmt.Errorf("the answer does not match api/openapi.yaml: %w", err)
	}
	return resp, nil
}

// Failures returns every answer that did not match the document.
func (t *Transport) Failures() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.failures)
}
