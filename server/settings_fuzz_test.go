package server_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/recur-journal/recur/server"
	"github.com/recur-journal/recur/store/storetest"
)

// FuzzPutSetting sends arbitrary keys and values to PUT
// /api/settings/me/{key}. The answer is 200 with the value as stored, which
// the list then shows, or 422 with a sentence under key or value; a key
// that is no single path segment ("", "." or "..", or one with a slash)
// is 404 or a redirect.
// Never a 500, never a panic.
func FuzzPutSetting(f *testing.F) {
	for _, seed := range [][2]string{
		{"timezone", "Europe/Lisbon"}, {"timezone", "Mars/Olympus"}, {"timezone", " UTC "}, {"app_locale", "pt-br"},
		{"app_locale", "\xff"}, {"colour", "blue"}, {"", "UTC"}, {"timezone/", "UTC"}, {"..", "x"}, {"%", "%"},
		{"timezone", "America/Argentina/ComodRivadavia" + strings.Repeat(" ", 80)}, {"app_locale", strings.Repeat("é", 101)},
	} {
		f.Add(seed[0], seed[1])
	}
	s := storetest.MustOpen(f)
	u := storetest.MustCreateUser(f, s, "fuzz@example.com")
	token := storetest.MustCreateToken(f, s, u.ID)
	h := server.New(server.Options{Store: s, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Version: "test", BaseURL: "http://127.0.0.1"}).Handler()
	do := func(method, path string, body []byte) (int, []byte) {
		req := httptest.NewRequest(method, "http://127.0.0.1"+path, bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Accept", "application/json")
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code, rec.Body.Bytes()
	}
	f.Fuzz(func(t *testing.T, key, value string) {
		body, err := json.Marshal(map[string]string{"value": value})
		if err != nil {
			t.Fatal(err)
		}
		status, answer := do(http.MethodPut, "/api/settings/me/"+url.PathEscape(key), body)
		switch status {
		case http.StatusOK:
			var got struct{ Data struct{ Key, Value string } }
			if err := json.Unmarshal(answer, &got); err != nil || got.Data.Key != key {
				t.Fatalf("200 for %q with %s (%v)", key, answer, err)
			}
			status, list := do(http.MethodGet, "/api/settings/me", nil)
			var all struct{ Data []struct{ Key, Value string } }
			if err := json.Unmarshal(list, &all); status != http.StatusOK || err != nil {
				t.Fatalf("list answered %d %s (%v)", status, list, err)
			}
			for _, st := range all.Data {
				if st.Key == key && st.Value != got.Data.Value {
					t.Fatalf("%s stored as %q, listed as %q", key, got.Data.Value, st.Value)
				}
			}
		case http.StatusUnprocessableEntity:
			var got struct {
				Message string
				Errors  map[string][]string
			}
			if err := json.Unmarshal(answer, &got); err != nil || got.Message == "" {
				t.Fatalf("422 body %s (%v)", answer, err)
			}
			if len(got.Errors["key"]) == 0 && len(got.Errors["value"]) == 0 {
				t.Fatalf("422 for %q=%q names no key or value: %s", key, value, answer)
			}
		case http.StatusNotFound, http.StatusTemporaryRedirect, http.StatusMovedPermanently:
			// Only a key that is no single path segment: none, one that the
			// router cleans out of the path and redirects, or one with a
			// slash, which the router reads as two segments even escaped.
			if key != "" && key != "." && key != ".." && !strings.Contains(key, "/") {
				t.Fatalf("%d for key %q: %s", status, key, answer)
			}
		default:
			t.Fatalf("PUT %q=%q answered %d: %s", key, value, status, answer)
		}
	})
}
