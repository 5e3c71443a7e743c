package server

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

// Known and unknown addresses must not be told apart by how long the
// answer takes. What would tell them apart is a difference in work: a
// look-up or a write on the request path for known addresses only. So the
// request path is run with the database closed and no worker taking the
// queue: both answers must be the same 204, from validation, rate limits
// and a queue alone. (That both wait for the workers is the account
// package's TestAskSignInMailDoesTheSameWork. Tests assert on work, never
// on time: a busy machine skews timings.)
func TestAddressRoutesDoTheSameWork(t *testing.T) {
	st := storetest.MustOpen(t)
	if err := st.CreateUser(t.Context(), &store.User{Email: "known@example.com"}); err != nil {
		t.Fatal(err)
	}
	s := New(Options{Store: st, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), BaseURL: "http://127.0.0.1", Secret: []byte("test secret")})
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	known := post(s, "/api/magic-links/mails", "127.0.0.7", map[string]string{"email": "known@example.com"})
	unknown := post(s, "/api/magic-links/mails", "127.0.0.7", map[string]string{"email": "unknown@example.com"})
	for _, res := range []struct {
		email string
		code  int
		body  string
	}{{"known", known.Code, known.Body.String()}, {"unknown", unknown.Code, unknown.Body.String()}} {
		if res.code != http.StatusNoContent {
			t.Errorf("%s address with the database closed: %d %s, want 204: the request path reads or writes the database", res.email, res.code, res.body)
		}
	}
	// Every request has its own id; all else must match.
	known.Header().Del("X-Request-Id")
	unknown.Header().Del("X-Request-Id")
	if known.Body.String() != unknown.Body.String() || !maps.EqualFunc(known.Header(), unknown.Header(), slices.Equal) {
		t.Errorf("answers differ:\nknown   %v %q\nunknown %v %q", known.Header(), known.Body, unknown.Header(), unknown.Body)
	}
}

// post sends a JSON body to the handler from the loopback address ip.
func post(s *Server, path, ip string, body any) *httptest.ResponseRecorder {
	b, _ := json.Marshal(body)
	req := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.RemoteAddr = ip + ":40000"
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, req)
	return rec
}
