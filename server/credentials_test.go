package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/recur-journal/recur/account"
	"github.com/recur-journal/recur/store/storetest"
)

// The original escalation: a token that may only post entries asked for a
// sign-in link, opened it, and the session it got could export the journal
// and register an app with every scope. It now stops at its first step.
func TestNarrowTokenCannotOpenASession(t *testing.T) {
	h, _ := accountsHarness(t)
	narrow := storetest.MustCreateToken(t, h.store, h.alice.ID, "captures:write")
	res := h.do("POST", "/api/magic-links/me", narrow, map[string]string{"path": "/"})
	if res.Status != 403 || !strings.Contains(string(res.Body), "lacks the * scope") {
		t.Fatalf("POST /magic-links/me with a captures:write token: %d %s, want 403 naming *", res.Status, res.Body)
	}
	if strings.Contains(string(res.Body), "magic-links/login") {
		t.Fatalf("the refusal carries a link: %s", res.Body)
	}
}

// Every route that makes or widens a credential refuses a caller that lacks
// a scope the new credential would carry, with 403 naming that scope.
func TestNoEscalation(t *testing.T) {
	h, _ := accountsHarness(t)
	narrow := storetest.MustCreateToken(t, h.store, h.alice.ID, "captures:write")
	manager := storetest.MustCreateToken(t, h.store, h.alice.ID, "apps:manage", "captures:read")
	// Every named scope, one by one, is still not "*": a session carries
	// every scope, including ones added later.
	var named []string
	for _, s := range account.Scopes {
		named = append(named, string(s.Name))
	}
	everyNamed := storetest.MustCreateToken(t, h.store, h.alice.ID, named...)
	appID, _ := registerApp(t, h, h.tokenA, map[string]any{"name": "Reader", "scopes": []string{"captures:read"}})
	_, everyScopeApp := registerApp(t, h, h.tokenA, map[string]any{"name": "Everything", "scopes": []string{"*"}})

	h.run([]scenario{
		{name: "MagicLinkNarrowToken", method: "POST", path: "/api/magic-links/me", token: narrow, body: map[string]string{},
			status: 403, contains: []string{"lacks the * scope"}},
		{name: "MagicLinkEveryNamedScope", method: "POST", path: "/api/magic-links/me", token: everyNamed, body: map[string]string{},
			status: 403, contains: []string{"lacks the * scope"}},
		{name: "MagicLinkAppWithEveryScope", method: "POST", path: "/api/magic-links/me", token: everyScopeApp, body: map[string]string{},
			status: 403, contains: []string{"app's token cannot open a browser session"}, notContains: []string{"magic-links/login"}},
		{name: "MagicLinkAllScopes", method: "POST", path: "/api/magic-links/me", token: h.tokenA, body: map[string]string{},
			status: 200, contains: []string{"/api/magic-links/login?"}},
		{name: "AppMoreThanCarried", method: "POST", path: "/api/apps", token: manager,
			body:   map[string]any{"name": "Writer", "scopes": []string{"captures:read", "captures:write"}},
			status: 403, contains: []string{"lacks the captures:write scope"}, notContains: []string{`"token"`}},
		{name: "AppDefaultScopesNotCarried", method: "POST", path: "/api/apps", token: manager, body: map[string]any{"name": "Shortcut"},
			status: 403, contains: []string{"lacks the captures:write scope"}},
		{name: "AppEveryScope", method: "POST", path: "/api/apps", token: manager, body: map[string]any{"name": "All", "scopes": []string{"*"}},
			status: 403, contains: []string{"lacks the * scope"}},
		{name: "AppEveryScopeFromEveryNamed", method: "POST", path: "/api/apps", token: everyNamed,
			body: map[string]any{"name": "All", "scopes": []string{"*"}}, status: 403, contains: []string{"lacks the * scope"}},
		{name: "AppWidened", method: "PATCH", path: "/api/apps/" + appID, token: manager,
			body: map[string]any{"scopes": []string{"captures:read", "account:export"}}, status: 403, contains: []string{"lacks the account:export scope"}},
		{name: "AppWithinCarried", method: "POST", path: "/api/apps", token: manager,
			body: map[string]any{"name": "Reader", "scopes": []string{"captures:read"}}, status: 201},
		{name: "AppNarrowed", method: "PATCH", path: "/api/apps/" + appID, token: manager,
			body: map[string]any{"scopes": []string{"captures:read"}}, status: 200},
	})

	t.Run("SessionMakesAnything", func(t *testing.T) {
		b := h.browser()
		res := h.do("POST", "/api/magic-links/me", h.tokenA, map[string]string{"path": "/"})
		if res.Status != 200 {
			t.Fatalf("magic-links/me: %d %s", res.Status, res.Body)
		}
		if got := b.do("GET", res.JSON(t)["data"].(map[string]any)["url"].(string), nil); got.Status != 302 {
			t.Fatalf("open the link: %d %s", got.Status, got.Body)
		}
		if res := b.do("POST", "/api/magic-links/me", map[string]string{}); res.Status != 200 {
			t.Fatalf("magic-links/me on a session: %d %s", res.Status, res.Body)
		}
		if res := b.do("POST", "/api/apps", map[string]any{"name": "All", "scopes": []string{"*"}}); res.Status != 201 {
			t.Fatalf("app with every scope on a session: %d %s", res.Status, res.Body)
		}
	})
}

// The Authorization scheme is case-insensitive, as RFC 9110 says.
func TestBearerSchemeAnyCase(t *testing.T) {
	h := newHarness(t)
	for _, scheme := range []string{"Bearer", "bearer", "BEARER", "bEaReR"} {
		req, _ := http.NewRequest("GET", h.srv.URL+"/api/users/me", nil)
		req.Header.Set("Authorization", scheme+" "+h.tokenA)
		if res := h.send(req, ""); res.Status != 200 {
			t.Errorf("%s <token>: %d %s", scheme, res.Status, res.Body)
		}
	}
	req, _ := http.NewRequest("GET", h.srv.URL+"/api/users/me", nil)
	req.Header.Set("Authorization", "Basic "+h.tokenA)
	if res := h.send(req, ""); res.Status != 401 {
		t.Errorf("Basic <token>: %d, want 401", res.Status)
	}
}

// The magic-link path is limited to 255 characters, not bytes.
func TestMagicLinkPathCountsCharacters(t *testing.T) {
	h, _ := accountsHarness(t)
	at255 := "/" + strings.Repeat("é", 254) // 255 characters, 509 bytes
	if res := h.do("POST", "/api/magic-links/me", h.tokenA, map[string]string{"path": at255}); res.Status != 200 {
		t.Fatalf("a 255-character path: %d %s", res.Status, res.Body)
	}
	if res := h.doInvalid("POST", "/api/magic-links/me", h.tokenA, map[string]string{"path": at255 + "é"}); res.Status != 422 ||
		!strings.Contains(string(res.Body), `"path":["The path may not be longer than 255 characters."]`) {
		t.Fatalf("a 256-character path: %d %s", res.Status, res.Body)
	}
}
