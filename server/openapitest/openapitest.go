// Package openapitest checks HTTP traffic against Recur's OpenAPI document,
// for tests: every request a test sends and every answer it gets must be
// as the document describes them.
package openapitest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
)

// offDocumentKey marks a request that breaks the OpenAPI document on purpose.
type offDocumentKey struct{}

// OffDocument marks req as breaking the OpenAPI document on purpose, to get
// a 400 or 422 (or a 404 from a route that does not exist): the request is
// not checked against the document, its answer still is.
func OffDocument(req *http.Request) *http.Request {
	return req.WithContext(context.WithValue(req.Context(), offDocumentKey{}, true))
}

// testKey carries the subtest that sends a request, to fail that one.
type testKey struct{}

// SentBy marks req as sent by t: a difference from the document fails t.
func SentBy(req *http.Request, t testing.TB) *http.Request {
	return req.WithContext(context.WithValue(req.Context(), testKey{}, t))
}

// notOperations are the paths under /api that are not operations of the
// API: the document itself, its rendered reference and that page's stylesheet.
var notOperations = map[string]bool{"/api/openapi.json": true, "/api/openapi.yaml": true, "/api/docs/api": true,
	"/api/docs/style.css": true}

// Checker is an http.RoundTripper that checks every request a test sends
// to the API, and every answer it gets, against the server's own OpenAPI
// document; what the document does not describe fails the test.
type Checker struct {
	t    testing.TB
	next http.RoundTripper
	*Document
}

// Document is a parsed OpenAPI document and a router over it.
type Document struct {
	Spec   *openapi3.T
	router routers.Router
}

// documents holds each served document parsed, so that the many harnesses
// of a test run parse the same document once. Parallel tests start
// together: loading holds them while one of them parses, instead of each
// parsing the document as well.
var (
	documents = map[[sha256.Size]byte]*Document{}
	loading   sync.Mutex
)

func init() {
	// The import route takes the file as it is; these carry no structure
	// the check could look into.
	openapi3filter.RegisterBodyDecoder("application/zip", openapi3filter.FileBodyDecoder)
	openapi3filter.RegisterBodyDecoder("text/markdown", openapi3filter.FileBodyDecoder)
	openapi3filter.RegisterBodyDecoder("text/event-stream", openapi3filter.FileBodyDecoder)
}

// New returns a Checker over the OpenAPI document doc that reports to t
// and sends through http.DefaultTransport.
func New(t testing.TB, doc []byte) *Checker {
	t.Helper()
	return &Checker{t: t, next: http.DefaultTransport, Document: load(t, doc)}
}

// load parses and validates an OpenAPI document and routes by it.
func load(t testing.TB, doc []byte) *Document {
	t.Helper()
	key := sha256.Sum256(doc)
	loading.Lock()
	defer loading.Unlock()
	if d, ok := documents[key]; ok {
		return d
	}
	loader := openapi3.NewLoader()
	spec, err := loader.LoadFromData(doc)
	if err != nil {
		t.Fatalf("the OpenAPI document does not load: %v", err)
	}
	if err := spec.Validate(loader.Context); err != nil {
		t.Fatalf("the OpenAPI document is not valid: %v", err)
	}
	r, err := gorillamux.NewRouter(spec)
	if err != nil {
		t.Fatalf("the OpenAPI document cannot route: %v", err)
	}
	d := &Document{Spec: spec, router: r}
	documents[key] = d
	return d
}

// RoundTrip sends req and checks it and its answer.
func (c *Checker) RoundTrip(req *http.Request) (*http.Response, error) {
	var reqBody []byte
	if req.Body != nil {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		reqBody = b
	}
	out := req.Clone(req.Context())
	if req.Body != nil {
		out.Body = io.NopCloser(bytes.NewReader(reqBody))
	}
	res, err := c.next.RoundTrip(out)
	if err != nil {
		return nil, err
	}
	t := c.t
	if st, ok := req.Context().Value(testKey{}).(testing.TB); ok {
		t = st
	}
	if strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		// A stream does not end: its status and headers are checked, and
		// the test reads the messages as they come.
		for _, err := range c.check(req, reqBody, res, nil) {
			t.Errorf("%v", err)
		}
		return res, nil
	}
	resBody, err := io.ReadAll(res.Body)
	res.Body.Close()
	res.Body = io.NopCloser(bytes.NewReader(resBody))
	if err != nil {
		return nil, err
	}
	for _, err := range c.check(req, reqBody, res, resBody) {
		t.Errorf("%v", err)
	}
	return res, nil
}

// check returns where req and its answer differ from the document.
func (c *Checker) check(req *http.Request, reqBody []byte, res *http.Response, resBody []byte) []error {
	if !strings.HasPrefix(req.URL.Path, "/api/") || notOperations[req.URL.Path] {
		return nil // the web app and the documentation are not part of the API
	}
	off, _ := req.Context().Value(offDocumentKey{}).(bool)
	vreq := req.Clone(context.Background())
	vreq.Body = io.NopCloser(bytes.NewReader(reqBody))
	route, params, err := c.router.FindRoute(vreq)
	if err != nil {
		if off && (errors.Is(err, routers.ErrPathNotFound) || errors.Is(err, routers.ErrMethodNotAllowed)) {
			return nil // no operation to hold the answer to
		}
		return []error{fmt.Errorf("%s %s answered %d: the OpenAPI document has no such operation: %v", req.Method, req.URL.Path, res.StatusCode, err)}
	}
	var errs []error
	name := fmt.Sprintf("operation %s (%s %s)", route.Operation.OperationID, req.Method, req.URL.RequestURI())
	in := &openapi3filter.RequestValidationInput{Request: vreq, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc,
			RejectWhenRequestBodyNotSpecified: true, MultiError: true}}
	if !off {
		if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
			errs = append(errs, fmt.Errorf("%s: the request differs from the OpenAPI document (mark it OffDocument if that is the point of the test): %v", name, err))
		}
	}
	in.Request = req.Clone(context.Background())
	in.Request.Body = http.NoBody
	if err := openapi3filter.ValidateResponse(context.Background(), &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in, Status: res.StatusCode, Header: res.Header, Body: io.NopCloser(bytes.NewReader(resBody)),
		Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}); err != nil {
		errs = append(errs, fmt.Errorf("%s answered %d, which differs from the OpenAPI document: %v\n%s", name, res.StatusCode, err, truncate(resBody)))
	}
	return errs
}

func truncate(b []byte) []byte {
	if len(b) > 500 {
		return append(b[:500:500], "..."...)
	}
	return b
}

// Operation is one operation of the document.
type Operation struct {
	Method, Path string
	Op           *openapi3.Operation
}

// Operations lists every operation of the document, by operation id.
func (d *Document) Operations() []Operation {
	var ops []Operation
	for _, path := range d.Spec.Paths.InMatchingOrder() {
		for method, op := range d.Spec.Paths.Value(path).Operations() {
			ops = append(ops, Operation{Method: method, Path: path, Op: op})
		}
	}
	slices.SortFunc(ops, func(a, b Operation) int { return strings.Compare(a.Op.OperationID, b.Op.OperationID) })
	return ops
}
