package server_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

const (
	firefoxLinux = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"
	safariPhone  = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1"
	testPassword = "correct horse battery"
)

// passwordUser makes a user who signs in with testPassword.
func passwordUser(t *testing.T, h *harness, email string) *store.User {
	t.Helper()
	hash, err := store.HashPassword(testPassword)
	if err != nil {
		t.Fatal(err)
	}
	u := &store.User{Email: email, PasswordHash: hash}
	if err := h.store.CreateUser(context.Background(), u); err != nil {
		t.Fatal(err)
	}
	return u
}

// signedIn is a browser that signed u in by password, calling itself ua.
func signedIn(t *testing.T, h *harness, u *store.User, ua string) *browser {
	t.Helper()
	b := h.browser()
	b.t = t
	b.header.Set("User-Agent", ua)
	if res := b.do("POST", "/api/login", map[string]string{"email": u.Email, "password": testPassword}); res.Status != 200 {
		t.Fatalf("sign in %s: %d %s", u.Email, res.Status, res.Body)
	}
	return b
}

// sessionsOf lists what GET /api/sessions answers the browser.
func sessionsOf(t *testing.T, b *browser) []map[string]any {
	t.Helper()
	res := b.do("GET", "/api/sessions", nil)
	if res.Status != 200 {
		t.Fatalf("GET /api/sessions: %d %s", res.Status, res.Body)
	}
	var out []map[string]any
	for _, item := range res.JSON(t)["data"].([]any) {
		out = append(out, item.(map[string]any))
	}
	return out
}

// carolAndDave is a server where carol is signed in on a laptop and a
// phone, and dave on a laptop of his own.
func carolAndDave(t *testing.T) (h *harness, carol *store.User, laptop, phone, dave *browser) {
	h = newHarness(t)
	carol = passwordUser(t, h, "carol@example.com")
	laptop = signedIn(t, h, carol, firefoxLinux)
	phone = signedIn(t, h, carol, safariPhone)
	dave = signedIn(t, h, passwordUser(t, h, "dave@example.com"), firefoxLinux)
	return h, carol, laptop, phone, dave
}

func TestListSessions(t *testing.T) {
	h, carol, laptop, phone, dave := carolAndDave(t)

	list := sessionsOf(t, laptop)
	if len(list) != 2 {
		t.Fatalf("carol has %d sessions listed, want her 2: %v", len(list), list)
	}
	byName := map[string]map[string]any{}
	for _, s := range list {
		byName[s["name"].(string)] = s
	}
	lp, ph := byName["Firefox on Linux"], byName["Safari on iPhone"]
	if lp == nil || ph == nil {
		t.Fatalf("names = %v, want Firefox on Linux and Safari on iPhone", list)
	}
	if lp["current"] != true || ph["current"] != false {
		t.Errorf("current: laptop %v, phone %v; want only the laptop's", lp["current"], ph["current"])
	}
	if lp["user_agent"] != firefoxLinux || lp["ip"] != "127.0.0.1" {
		t.Errorf("laptop user_agent %q ip %q", lp["user_agent"], lp["ip"])
	}
	for _, s := range list {
		for _, k := range []string{"created_at", "last_used_at", "expires_at"} {
			if v, _ := s[k].(string); !timestampRE.MatchString(v) {
				t.Errorf("%s = %v, want a timestamp", k, s[k])
			}
		}
	}
	t.Run("NoCookieTokenShown", func(t *testing.T) {
		body := string(laptop.do("GET", "/api/sessions", nil).Body)
		for _, b := range []*browser{laptop, phone} {
			if tok := b.session(); tok == "" || strings.Contains(body, tok) {
				t.Fatalf("the list shows a cookie token (or there is none): %q", tok)
			}
		}
	})
	t.Run("OtherUsersNotListed", func(t *testing.T) {
		theirs := sessionsOf(t, dave)
		if len(theirs) != 1 || theirs[0]["id"] == lp["id"] || theirs[0]["id"] == ph["id"] {
			t.Fatalf("dave sees %v", theirs)
		}
	})
	t.Run("LastUseMoves", func(t *testing.T) {
		h.advance(5 * time.Minute)
		long := strings.Repeat("x", 300)
		phone.header.Set("User-Agent", long)
		if res := phone.do("GET", "/api/users/me", nil); res.Status != 200 {
			t.Fatalf("phone: %d", res.Status)
		}
		for _, s := range sessionsOf(t, laptop) {
			if s["id"] != ph["id"] {
				continue
			}
			if s["last_used_at"].(string) <= ph["last_used_at"].(string) {
				t.Errorf("last_used_at %v did not move from %v", s["last_used_at"], ph["last_used_at"])
			}
			if s["created_at"] != ph["created_at"] {
				t.Errorf("created_at moved: %v, was %v", s["created_at"], ph["created_at"])
			}
			if got := s["user_agent"].(string); got != long[:255] {
				t.Errorf("user agent of %d characters kept, want it cut to 255", len(got))
			}
		}
	})
	t.Run("Scopes", func(t *testing.T) {
		all := storetest.MustCreateToken(t, h.store, carol.ID, "*")
		narrow := storetest.MustCreateToken(t, h.store, carol.ID, "apps:manage", "profile:read")
		h.run([]scenario{
			{name: "EveryScopeToken", method: "GET", path: "/api/sessions", token: all, status: 200,
				contains: []string{`"name":"Firefox on Linux"`, `"current":false`}, notContains: []string{`"current":true`}},
			{name: "NarrowToken", method: "GET", path: "/api/sessions", token: narrow, status: 403,
				contains: []string{`{"message":"This token lacks the * scope."}`}},
			{name: "NoOne", method: "GET", path: "/api/sessions", status: 401},
			{name: "BadLimit", method: "GET", path: "/api/sessions?limit=0", token: all, status: 422, contains: []string{`"limit"`}, invalid: true},
		})
	})
}

func TestSignOutSession(t *testing.T) {
	h, carol, laptop, phone, dave := carolAndDave(t)
	var phoneID string
	for _, s := range sessionsOf(t, laptop) {
		if s["current"] == false {
			phoneID = s["id"].(string)
		}
	}

	t.Run("AnotherUsersIsNotFound", func(t *testing.T) {
		if res := dave.do("DELETE", "/api/sessions/"+phoneID, nil); res.Status != 404 {
			t.Fatalf("dave signs out carol's phone: %d %s", res.Status, res.Body)
		}
		if res := h.do("DELETE", "/api/sessions/"+phoneID, h.tokenB, nil); res.Status != 404 {
			t.Fatalf("bob's token signs out carol's phone: %d %s", res.Status, res.Body)
		}
		if res := phone.do("GET", "/api/users/me", nil); res.Status != 200 {
			t.Fatalf("the phone was signed out by another user: %d", res.Status)
		}
	})
	t.Run("NotFound", func(t *testing.T) {
		if res := laptop.do("DELETE", "/api/sessions/0190a1b2-0000-7000-8000-000000000000", nil); res.Status != 404 {
			t.Fatalf("unknown session: %d %s", res.Status, res.Body)
		}
	})
	t.Run("NotAnID", func(t *testing.T) {
		res := laptop.invalid().do("DELETE", "/api/sessions/"+phone.session(), nil)
		if res.Status != 422 || !strings.Contains(string(res.Body), `"session"`) {
			t.Fatalf("a cookie token for an id: %d %s", res.Status, res.Body)
		}
	})
	t.Run("NarrowToken", func(t *testing.T) {
		narrow := storetest.MustCreateToken(t, h.store, carol.ID, "apps:manage")
		if res := h.do("DELETE", "/api/sessions/"+phoneID, narrow, nil); res.Status != 403 {
			t.Fatalf("apps:manage token: %d %s", res.Status, res.Body)
		}
	})
	t.Run("OK", func(t *testing.T) {
		if res := laptop.do("DELETE", "/api/sessions/"+phoneID, nil); res.Status != 204 {
			t.Fatalf("sign out the phone: %d %s", res.Status, res.Body)
		}
		if res := phone.do("GET", "/api/users/me", nil); res.Status != 401 {
			t.Fatalf("the phone still works: %d", res.Status)
		}
		if res := laptop.do("GET", "/api/users/me", nil); res.Status != 200 {
			t.Fatalf("the laptop was signed out too: %d", res.Status)
		}
		if res := laptop.do("DELETE", "/api/sessions/"+phoneID, nil); res.Status != 404 {
			t.Fatalf("again: %d", res.Status)
		}
	})
	t.Run("OwnSession", func(t *testing.T) {
		own := sessionsOf(t, laptop)[0]["id"].(string)
		// Long enough that the request notes its use in the session, which
		// saving the session at its end must not bring back.
		h.advance(2 * time.Minute)
		if res := laptop.do("DELETE", "/api/sessions/"+own, nil); res.Status != 204 {
			t.Fatalf("sign out itself: %d %s", res.Status, res.Body)
		}
		if res := laptop.do("GET", "/api/users/me", nil); res.Status != 401 {
			t.Fatalf("the laptop signed itself out but still works: %d", res.Status)
		}
	})
}

func TestSignOutOtherSessions(t *testing.T) {
	h, carol, laptop, phone, dave := carolAndDave(t)
	tablet := signedIn(t, h, carol, safariPhone)
	carolToken := storetest.MustCreateToken(t, h.store, carol.ID, "*")

	if res := laptop.do("DELETE", "/api/sessions", nil); res.Status != 204 {
		t.Fatalf("sign out the others: %d %s", res.Status, res.Body)
	}
	for name, b := range map[string]*browser{"phone": phone, "tablet": tablet} {
		if res := b.do("GET", "/api/users/me", nil); res.Status != 401 {
			t.Errorf("the %s still works: %d", name, res.Status)
		}
	}
	for name, b := range map[string]*browser{"laptop, which asked": laptop, "another user's": dave} {
		if res := b.do("GET", "/api/users/me", nil); res.Status != 200 {
			t.Errorf("%s session was signed out: %d", name, res.Status)
		}
	}
	if res := h.do("GET", "/api/users/me", carolToken, nil); res.Status != 200 {
		t.Errorf("signing out the browsers revoked a token: %d", res.Status)
	}
	if list := sessionsOf(t, laptop); len(list) != 1 || list[0]["current"] != true {
		t.Errorf("left: %v, want only the laptop's", list)
	}
	t.Run("WithAToken", func(t *testing.T) {
		if res := h.do("DELETE", "/api/sessions", carolToken, nil); res.Status != 204 {
			t.Fatalf("with a token: %d %s", res.Status, res.Body)
		}
		if res := laptop.do("GET", "/api/users/me", nil); res.Status != 401 {
			t.Fatalf("a token signs out every session, the laptop's too: %d", res.Status)
		}
		if res := dave.do("GET", "/api/users/me", nil); res.Status != 200 {
			t.Fatalf("another user's session was signed out: %d", res.Status)
		}
	})
	t.Run("NarrowToken", func(t *testing.T) {
		narrow := storetest.MustCreateToken(t, h.store, carol.ID, "captures:write")
		if res := h.do("DELETE", "/api/sessions", narrow, nil); res.Status != 403 || !strings.Contains(string(res.Body), "*") {
			t.Fatalf("captures:write token: %d %s", res.Status, res.Body)
		}
	})
}

func TestBrowserNames(t *testing.T) {
	h := newHarness(t)
	carol := passwordUser(t, h, "carol@example.com")
	for ua, want := range map[string]string{
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0.0.0": "Edge on Windows",
		"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36":         "Chrome on macOS",
		"Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36":                  "Chrome on Android",
		"curl/8.5.0": "curl",
		"":           "Unknown browser",
	} {
		b := signedIn(t, h, carol, ua)
		for _, s := range sessionsOf(t, b) {
			if s["current"] == true && s["name"] != want {
				t.Errorf("%q is named %q, want %q", ua, s["name"], want)
			}
		}
	}
}
