package server_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/recur-journal/recur/server/openapitest"
)

// newDocCheck checks traffic against the document handler serves.
func newDocCheck(t testing.TB, handler http.Handler) *openapitest.Checker {
	t.Helper()
	rec := httptest.NewRecorder()
	handler.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/openapi.json", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /api/openapi.json: %d %s", rec.Code, rec.Body)
	}
	return openapitest.New(t, rec.Body.Bytes())
}

var (
	offDocument = openapitest.OffDocument
	sentBy      = openapitest.SentBy
)

// offDocumentTransport sends every request marked offDocument.
type offDocumentTransport struct{ next http.RoundTripper }

func (o offDocumentTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	return o.next.RoundTrip(offDocument(req))
}

// invalid returns the browser, its cookies included, sending requests that
// break the OpenAPI document on purpose: only the answers are checked.
func (b *browser) invalid() *browser {
	client := *b.client
	client.Transport = offDocumentTransport{client.Transport}
	return &browser{t: b.t, h: b.h, client: &client, header: b.header}
}
