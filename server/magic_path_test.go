package server_test

import (
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A genuine sign-in link whose path a browser would read as another host
// (a tab or newline the URL parser drops, a second slash, a backslash, any
// of them percent-encoded) is refused with 422 before anyone is signed in,
// and POST /magic-links/me refuses to make one.
func TestMagicLinkPathStaysOnThisApp(t *testing.T) {
	h, _ := accountsHarness(t)
	refused := []string{
		"/\t/evil.example/phish", "/\n/evil.example", "/\r\n/evil.example", "\t//evil.example", "/\x00/evil.example",
		"//evil.example", "///evil.example", "/\\evil.example", "/\\/evil.example", "\\\\evil.example", "/entries\\..\\x",
		"/%09/evil.example", "/%0a/evil.example", "/%2F/evil.example", "/%2f%2fevil.example", "/%5C/evil.example", "/%5cevil.example",
		"https://evil.example", "javascript:alert(1)", "evil.example", " /evil.example", "/\u007f/evil.example",
	}
	for _, path := range refused {
		t.Run(strconv.Quote(path), func(t *testing.T) {
			exp := strconv.FormatInt(h.store.Now().Add(time.Minute).Unix(), 10)
			v := url.Values{"user_uuid": {h.alice.ID}, "path": {path}, "expires": {exp}, "signature": {sign(h.alice.ID, path, "", exp)}}
			// One round trip, so that a Location the client cannot parse is
			// seen rather than followed.
			req, _ := http.NewRequest("GET", h.srv.URL+"/api/magic-links/login?"+v.Encode(), nil)
			res, err := h.browser().invalid().client.Transport.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != 422 || !strings.Contains(string(body), `"path":[`) {
				t.Fatalf("link: %d Location %q %s", res.StatusCode, res.Header.Get("Location"), body)
			}
			if c := res.Header.Get("Set-Cookie"); c != "" {
				t.Fatalf("the refused link set a cookie: %s", c)
			}
			mine := h.doInvalid("POST", "/api/magic-links/me", h.tokenA, map[string]string{"path": path})
			if mine.Status != 422 || !strings.Contains(string(mine.Body), `"path":[`) {
				t.Fatalf("magic-links/me: %d %s", mine.Status, mine.Body)
			}
		})
	}
	for _, path := range []string{"/", "/timeline", "/entries/0193?x=1#top", "/patterns/a%20b", "/search?q=caf%C3%A9"} {
		t.Run("Accepted "+strconv.Quote(path), func(t *testing.T) {
			exp := strconv.FormatInt(h.store.Now().Add(time.Minute).Unix(), 10)
			v := url.Values{"user_uuid": {h.alice.ID}, "path": {path}, "expires": {exp}, "signature": {sign(h.alice.ID, path, "", exp)}}
			res := h.browser().do("GET", "/api/magic-links/login?"+v.Encode(), nil)
			if res.Status != 302 || res.Header.Get("Location") != path {
				t.Fatalf("%d Location %q %s", res.Status, res.Header.Get("Location"), res.Body)
			}
		})
	}
}
