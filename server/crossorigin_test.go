package server_test

import (
	"net/http"
	"strings"
	"testing"
)

// A browser session is checked for cross-origin forgery whatever other
// headers come with it: a bogus Authorization header does not turn the
// check off for a request that rides on the session cookie.
func TestCrossOriginWithBogusAuthorization(t *testing.T) {
	h, _ := accountsHarness(t)
	b := h.browser()
	link := h.do("POST", "/api/magic-links/me", h.tokenA, map[string]string{"path": "/"})
	if res := b.do("GET", link.JSON(t)["data"].(map[string]any)["url"].(string), nil); res.Status != 302 {
		t.Fatalf("sign in: %d %s", res.Status, res.Body)
	}
	for _, auth := range []string{"Bearer bogus", "Bearer " + h.tokenB, "bearer x|y", "Basic Zm9vOmJhcg=="} {
		for _, path := range []string{"/settings/security/sessions/delete", "/api/login", "/api/logout"} {
			evil := &browser{t: t, h: h, client: b.invalid().client, header: http.Header{
				"Origin": {"https://evil.example"}, "Sec-Fetch-Site": {"cross-site"}, "Authorization": {auth}}}
			res := evil.do("POST", path, map[string]string{"email": "alice@example.com", "password": "x"})
			if res.Status != 403 || !strings.Contains(string(res.Body), "Cross-origin request refused.") {
				t.Errorf("%s with %q from another origin: %d %.200s", path, auth, res.Status, res.Body)
			}
		}
	}
	if res := b.do("GET", "/api/users/me", nil); res.Status != 200 {
		t.Fatalf("the session was ended: %d", res.Status)
	}
}
