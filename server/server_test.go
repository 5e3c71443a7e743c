package server_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recur-journal/recur/server"
	"github.com/recur-journal/recur/server/openapitest"
	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
	"github.com/recur-journal/recur/web"
)

// TestMain hashes the tests' passwords cheaply: these tests are about the
// API's sign-in, not the hash, which store's tests hold.
func TestMain(m *testing.M) {
	storetest.CheapPasswords()
	os.Exit(m.Run())
}

// harness is a running API over a real SQLite file, with two users.
type harness struct {
	t      *testing.T
	store  *store.Store
	dbPath string // the database file, for tests that count rows
	srv    *httptest.Server
	api    *server.Server
	alice  *store.User
	bob    *store.User
	tokenA string // alice, every scope
	tokenB string // bob, every scope
	clock  *storetest.Clock
	// check holds every request and answer to the OpenAPI document.
	check *openapitest.Checker
}

// advance moves the store's clock forward, as time would.
func (h *harness) advance(d time.Duration) { h.clock.Advance(d) }

func newHarness(t *testing.T, opts ...func(*server.Options)) *harness {
	t.Helper()
	h := &harness{t: t}
	h.dbPath = filepath.Join(t.TempDir(), "recur.db")
	h.clock = storetest.NewClock(t)
	s := storetest.MustOpenAt(t, h.dbPath, h.clock.Now)
	h.store = s
	h.srv, h.api = startServer(t, s, opts...)
	h.check = newDocCheck(t, h.srv.Config.Handler)
	h.alice = storetest.MustCreateUser(t, s, "alice@example.com")
	h.bob = storetest.MustCreateUser(t, s, "bob@example.com")
	storetest.InTestZone(t, s, h.alice)
	storetest.InTestZone(t, s, h.bob)
	h.tokenA = storetest.MustCreateToken(t, s, h.alice.ID)
	h.tokenB = storetest.MustCreateToken(t, s, h.bob.ID)
	return h
}

// startServer serves the API and the web app over s on a loopback port
// until tb ends.
func startServer(tb testing.TB, s *store.Store, opts ...func(*server.Options)) (*httptest.Server, *server.Server) {
	tb.Helper()
	srv := httptest.NewServer(nil)
	// BaseURL is the server's own unless an option says otherwise.
	o := server.Options{Store: s, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Version: "test", BaseURL: srv.URL}
	for _, f := range opts {
		f(&o)
	}
	api := server.New(o)
	api.Mount(web.New(web.Options{Store: s, Accounts: api.Accounts(), Health: o.Health, Logger: o.Logger}))
	srv.Config.Handler = api.Handler()
	api.Start()
	tb.Cleanup(api.Stop)
	tb.Cleanup(srv.Close)
	return srv, api
}

// response is what a request got back.
type response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body into a generic value.
func (r response) JSON(t *testing.T) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(r.Body, &v); err != nil {
		t.Fatalf("body is not a JSON object: %v\n%s", err, r.Body)
	}
	return v
}

// do sends a request that the OpenAPI document describes.
func (h *harness) do(method, path, token string, body any) response {
	h.t.Helper()
	return h.send(h.request(method, path, body), token)
}

// doInvalid sends a request that breaks the OpenAPI document on purpose:
// only the answer is checked against it.
func (h *harness) doInvalid(method, path, token string, body any) response {
	h.t.Helper()
	return h.send(offDocument(h.request(method, path, body)), token)
}

// request builds a JSON request to the test server.
func (h *harness) request(method, path string, body any) *http.Request {
	h.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		buf, err := json.Marshal(b)
		if err != nil {
			h.t.Fatal(err)
		}
		rd = bytes.NewReader(buf)
	}
	req, err := http.NewRequest(method, h.srv.URL+path, rd)
	if err != nil {
		h.t.Fatal(err)
	}
	req.Header.Set("Accept", "application/json")
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return req
}

// send sends req with the bearer token, if any, and reads the answer; the
// request (unless marked offDocument) and the answer must be as the OpenAPI
// document describes them.
func (h *harness) send(req *http.Request, token string) response {
	h.t.Helper()
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := (&http.Client{Transport: h.check}).Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		h.t.Fatal(err)
	}
	return response{Status: res.StatusCode, Header: res.Header, Body: b}
}

// scenario is one request and what its answer must and must not contain.
type scenario struct {
	name        string
	method      string
	path        string
	token       string
	body        any
	status      int
	contains    []string
	notContains []string
	// invalid says the request breaks the OpenAPI document on purpose:
	// only the answer is checked against it.
	invalid bool
}

func (h *harness) run(scenarios []scenario) {
	h.t.Helper()
	for _, sc := range scenarios {
		h.t.Run(sc.name, func(t *testing.T) {
			req := sentBy(h.request(sc.method, sc.path, sc.body), t)
			if sc.invalid {
				req = offDocument(req)
			}
			res := h.send(req, sc.token)
			if got, want := res.Status, sc.status; got != want {
				t.Fatalf("%s %s: status = %d, want %d\n%s", sc.method, sc.path, got, want, res.Body)
			}
			for _, s := range sc.contains {
				if !bytes.Contains(res.Body, []byte(s)) {
					t.Errorf("body lacks %s\n%s", s, res.Body)
				}
			}
			for _, s := range sc.notContains {
				if bytes.Contains(res.Body, []byte(s)) {
					t.Errorf("body has %s\n%s", s, res.Body)
				}
			}
		})
	}
}

func storeToken(userID string, scopes ...string) *store.Token {
	return &store.Token{UserID: userID, Name: "test", Scopes: scopes}
}
