package server_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

// tokensOf lists what GET /api/tokens answers the token, by id.
func tokensOf(t *testing.T, h *harness, token string) map[string]map[string]any {
	t.Helper()
	res := h.do("GET", "/api/tokens", token, nil)
	if res.Status != 200 {
		t.Fatalf("GET /api/tokens: %d %s", res.Status, res.Body)
	}
	out := map[string]map[string]any{}
	for _, item := range res.JSON(t)["data"].([]any) {
		m := item.(map[string]any)
		out[m["id"].(string)] = m
	}
	return out
}

func idOf(token string) string { id, _, _ := strings.Cut(token, "|"); return id }

func TestListTokens(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	narrow := storetest.MustCreateToken(t, h.store, h.alice.ID, "captures:write")
	app := h.do("POST", "/api/apps", h.tokenA, map[string]any{"name": "Shortcut"}).JSON(t)["data"].(map[string]any)
	appToken := app["token"].(string)
	past := h.store.Now().Add(-time.Hour)
	expired, err := h.store.CreateToken(ctx, &store.Token{UserID: h.alice.ID, Name: "old", Scopes: []string{"*"}, ExpiresAt: &past})
	if err != nil {
		t.Fatal(err)
	}
	revoked := storetest.MustCreateToken(t, h.store, h.alice.ID)
	if err := h.store.RevokeToken(ctx, h.alice.ID, idOf(revoked)); err != nil {
		t.Fatal(err)
	}

	res := h.do("GET", "/api/tokens", h.tokenA, nil)
	list := tokensOf(t, h, h.tokenA)
	if len(list) != 3 {
		t.Fatalf("listed %d tokens, want alice's 3 live ones: %s", len(list), res.Body)
	}
	for _, gone := range []string{expired, revoked, h.tokenB} {
		if _, ok := list[idOf(gone)]; ok {
			t.Errorf("token %s is listed: expired, revoked or another user's", idOf(gone))
		}
	}
	for _, plain := range []string{h.tokenA, narrow, appToken, h.tokenB} {
		_, secret, _ := strings.Cut(plain, "|")
		if strings.Contains(string(res.Body), secret) {
			t.Fatalf("the list shows a secret")
		}
	}
	if strings.Contains(string(res.Body), "hash") {
		t.Fatalf("the list shows something of a hash: %s", res.Body)
	}
	own, n, a := list[idOf(h.tokenA)], list[idOf(narrow)], list[idOf(appToken)]
	if own["current"] != true || n["current"] != false || a["current"] != false {
		t.Errorf("current: own %v, narrow %v, app %v", own["current"], n["current"], a["current"])
	}
	if a["app"] != true || a["app_id"] != app["id"] || a["name"] != "Shortcut" || n["app"] != false || n["app_id"] != nil {
		t.Errorf("app: %v; narrow: %v", a, n)
	}
	if got := n["scopes"].([]any); len(got) != 1 || got[0] != "captures:write" {
		t.Errorf("narrow scopes = %v", got)
	}
	if n["last_used_at"] != nil || n["expires_at"] != nil || !timestampRE.MatchString(n["created_at"].(string)) {
		t.Errorf("narrow token times: %v", n)
	}
	if v, _ := own["last_used_at"].(string); !timestampRE.MatchString(v) {
		t.Errorf("the asking token's last_used_at = %v, want a timestamp", own["last_used_at"])
	}

	t.Run("Scopes", func(t *testing.T) {
		manage := storetest.MustCreateToken(t, h.store, h.alice.ID, "apps:manage", "profile:read")
		h.run([]scenario{
			{name: "NarrowToken", method: "GET", path: "/api/tokens", token: manage, status: 403,
				contains: []string{`{"message":"This token lacks the * scope."}`}},
			{name: "AppToken", method: "GET", path: "/api/tokens", token: appToken, status: 403},
			{name: "NoOne", method: "GET", path: "/api/tokens", status: 401},
			{name: "Paged", method: "GET", path: "/api/tokens?limit=1&page=2", token: h.tokenA, status: 200,
				contains: []string{`"total":4`, `"per_page":1`}},
		})
	})
	t.Run("Session", func(t *testing.T) {
		carol := passwordUser(t, h, "carol@example.com")
		b := signedIn(t, h, carol, firefoxLinux)
		mine := storetest.MustCreateToken(t, h.store, carol.ID, "profile:read")
		res := b.do("GET", "/api/tokens", nil)
		if res.Status != 200 || !strings.Contains(string(res.Body), idOf(mine)) || strings.Contains(string(res.Body), `"current":true`) {
			t.Fatalf("a session lists its user's tokens, none current: %d %s", res.Status, res.Body)
		}
	})
}

func TestRevokeToken(t *testing.T) {
	h := newHarness(t)
	narrow := storetest.MustCreateToken(t, h.store, h.alice.ID, "profile:read")
	app := h.do("POST", "/api/apps", h.tokenA, map[string]any{"name": "Shortcut"}).JSON(t)["data"].(map[string]any)

	t.Run("AnotherUsersIsNotFound", func(t *testing.T) {
		if res := h.do("DELETE", "/api/tokens/"+idOf(narrow), h.tokenB, nil); res.Status != 404 ||
			res.JSON(t)["message"] == nil {
			t.Fatalf("bob revokes alice's token: %d %s", res.Status, res.Body)
		}
		if res := h.do("GET", "/api/users/me", narrow, nil); res.Status != 200 {
			t.Fatalf("alice's token stopped working: %d", res.Status)
		}
	})
	t.Run("NarrowToken", func(t *testing.T) {
		manage := storetest.MustCreateToken(t, h.store, h.alice.ID, "apps:manage")
		if res := h.do("DELETE", "/api/tokens/"+idOf(narrow), manage, nil); res.Status != 403 || !strings.Contains(string(res.Body), "*") {
			t.Fatalf("apps:manage token revokes: %d %s", res.Status, res.Body)
		}
	})
	t.Run("NotAnID", func(t *testing.T) {
		if res := h.doInvalid("DELETE", "/api/tokens/nonsense", h.tokenA, nil); res.Status != 422 ||
			!strings.Contains(string(res.Body), `"token"`) {
			t.Fatalf("not an id: %d %s", res.Status, res.Body)
		}
	})
	t.Run("OK", func(t *testing.T) {
		if res := h.do("DELETE", "/api/tokens/"+idOf(narrow), h.tokenA, nil); res.Status != 204 {
			t.Fatalf("revoke: %d %s", res.Status, res.Body)
		}
		if res := h.do("GET", "/api/users/me", narrow, nil); res.Status != 401 {
			t.Fatalf("the revoked token still works: %d", res.Status)
		}
		if _, ok := tokensOf(t, h, h.tokenA)[idOf(narrow)]; ok {
			t.Fatal("the revoked token is still listed")
		}
		if res := h.do("DELETE", "/api/tokens/"+idOf(narrow), h.tokenA, nil); res.Status != 404 {
			t.Fatalf("revoked twice: %d", res.Status)
		}
	})
	t.Run("AppToken", func(t *testing.T) {
		token := app["token"].(string)
		if res := h.do("DELETE", "/api/tokens/"+idOf(token), h.tokenA, nil); res.Status != 204 {
			t.Fatalf("revoke the app's token: %d %s", res.Status, res.Body)
		}
		if res := h.do("GET", "/api/users/me", token, nil); res.Status != 401 {
			t.Fatalf("the app's token still works: %d", res.Status)
		}
		if res := h.do("GET", "/api/apps/"+app["id"].(string), h.tokenA, nil); res.Status != 404 {
			t.Fatalf("the app outlived its token: %d %s", res.Status, res.Body)
		}
	})
	t.Run("ItsOwnToken", func(t *testing.T) {
		own := storetest.MustCreateToken(t, h.store, h.alice.ID)
		if res := h.do("DELETE", "/api/tokens/"+idOf(own), own, nil); res.Status != 204 {
			t.Fatalf("revoke itself: %d %s", res.Status, res.Body)
		}
		if res := h.do("GET", "/api/tokens", own, nil); res.Status != 401 {
			t.Fatalf("the token revoked itself but still works: %d", res.Status)
		}
	})
}
