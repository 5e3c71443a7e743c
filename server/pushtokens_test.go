package server_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

// fcmToken looks like what Firebase hands an app install: colons and all.
const fcmToken = "dXk3bTQ6RVE:APA91bH_x-8Yq1"

func pushTokensOf(t *testing.T, h *harness, u *store.User) []store.PushToken {
	t.Helper()
	list, err := h.store.PushTokens(context.Background(), u.ID)
	if err != nil {
		t.Fatal(err)
	}
	return list
}

func findPushToken(t *testing.T, list []store.PushToken, token string) store.PushToken {
	t.Helper()
	for _, p := range list {
		if p.Token == token {
			return p
		}
	}
	t.Fatalf("no push token %q in %+v", token, list)
	return store.PushToken{}
}

func TestSavePushToken(t *testing.T) {
	h := newHarness(t)
	noDevices := storetest.MustCreateToken(t, h.store, h.alice.ID, "captures:write")
	devicesOnly := storetest.MustCreateToken(t, h.store, h.alice.ID, "devices:write")
	h.run([]scenario{
		{name: "OK", method: "POST", path: "/api/fcm-tokens/me", token: h.tokenA,
			body: map[string]string{"token": fcmToken, "platform": "android"}, status: 201},
		{name: "Again", method: "POST", path: "/api/fcm-tokens/me", token: devicesOnly,
			body: map[string]string{"token": fcmToken, "platform": "android"}, status: 201},
		{name: "ErrMissing", invalid: true, method: "POST", path: "/api/fcm-tokens/me", token: h.tokenA, body: map[string]string{"platform": "ios"}, status: 422,
			contains: []string{`"errors":{"token":["The token field is required."]}`}},
		{name: "ErrEmpty", invalid: true, method: "POST", path: "/api/fcm-tokens/me", token: h.tokenA, body: map[string]string{"token": ""}, status: 422,
			contains: []string{`"errors":{"token":[`}},
		{name: "ErrBlank", method: "POST", path: "/api/fcm-tokens/me", token: h.tokenA, body: map[string]string{"token": "   "}, status: 422,
			contains: []string{`"errors":{"token":["The token field is required."]}`}},
		{name: "ErrTooLong", invalid: true, method: "POST", path: "/api/fcm-tokens/me", token: h.tokenA, body: map[string]string{"token": strings.Repeat("a", 4097)}, status: 422,
			contains: []string{`"errors":{"token":["The token may not be longer than 4096 characters."]}`}},
		{name: "LongestAllowed", method: "POST", path: "/api/fcm-tokens/me", token: h.tokenA, body: map[string]string{"token": strings.Repeat("a", 4096)}, status: 201},
		{name: "ErrPlatform", invalid: true, method: "POST", path: "/api/fcm-tokens/me", token: h.tokenA,
			body: map[string]string{"token": "t2", "platform": "windows"}, status: 422,
			contains: []string{`"errors":{"platform":["The platform must be one of: android, ios, web."]}`}},
		{name: "ErrNoBody", invalid: true, method: "POST", path: "/api/fcm-tokens/me", token: h.tokenA, status: 422, contains: []string{`"errors":{"body":[`}},
		{name: "ErrNoToken", method: "POST", path: "/api/fcm-tokens/me", body: map[string]string{"token": "t3"}, status: 401},
		{name: "ErrScope", method: "POST", path: "/api/fcm-tokens/me", token: noDevices, body: map[string]string{"token": "t3"}, status: 403,
			contains: []string{`{"message":"This token lacks the devices:write scope."}`}},
	})
	t.Run("NoBodyInAnswer", func(t *testing.T) {
		res := h.do("POST", "/api/fcm-tokens/me", h.tokenA, map[string]string{"token": fcmToken})
		if res.Status != 201 || len(res.Body) != 0 {
			t.Fatalf("answer: %d %q, want 201 and no body", res.Status, res.Body)
		}
	})
	t.Run("StoredOnce", func(t *testing.T) {
		list := pushTokensOf(t, h, h.alice)
		if got, want := len(list), 2; got != want {
			t.Fatalf("alice has %d push tokens, want %d: %+v", got, want, list)
		}
		if got, want := findPushToken(t, list, fcmToken).Platform, "android"; got != want {
			t.Errorf("platform = %q, want %q (kept when left out)", got, want)
		}
		if len(pushTokensOf(t, h, h.bob)) != 0 {
			t.Error("bob has push tokens")
		}
	})
	t.Run("PlatformChanges", func(t *testing.T) {
		h.do("POST", "/api/fcm-tokens/me", h.tokenA, map[string]string{"token": fcmToken, "platform": "ios"})
		if got, want := findPushToken(t, pushTokensOf(t, h, h.alice), fcmToken).Platform, "ios"; got != want {
			t.Errorf("platform = %q, want %q", got, want)
		}
	})
	t.Run("MovesToTheSignedInUser", func(t *testing.T) {
		if res := h.do("POST", "/api/fcm-tokens/me", h.tokenB, map[string]string{"token": fcmToken}); res.Status != 201 {
			t.Fatalf("bob registers alice's device token: %d %s", res.Status, res.Body)
		}
		if got := pushTokensOf(t, h, h.bob); len(got) != 1 || got[0].Token != fcmToken || got[0].Platform != "ios" {
			t.Fatalf("bob's push tokens = %+v, want the moved one", got)
		}
		for _, p := range pushTokensOf(t, h, h.alice) {
			if p.Token == fcmToken {
				t.Fatal("the token is still alice's too")
			}
		}
	})
}

func TestDeletePushToken(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	for _, p := range []store.PushToken{{UserID: h.alice.ID, Token: fcmToken}, {UserID: h.bob.ID, Token: "bobs-phone"}} {
		if err := h.store.SavePushToken(ctx, &p); err != nil {
			t.Fatal(err)
		}
	}
	noDevices := storetest.MustCreateToken(t, h.store, h.alice.ID, "captures:write")
	path := "/api/fcm-tokens/me/" + url.PathEscape(fcmToken)
	h.run([]scenario{
		{name: "ErrNoToken", method: "DELETE", path: path, status: 401},
		{name: "ErrScope", method: "DELETE", path: path, token: noDevices, status: 403,
			contains: []string{`{"message":"This token lacks the devices:write scope."}`}},
		{name: "ErrAnotherUsers", method: "DELETE", path: "/api/fcm-tokens/me/bobs-phone", token: h.tokenA, status: 404,
			contains: []string{`{"message":"Push token not found."}`}},
		{name: "ErrUnknown", method: "DELETE", path: "/api/fcm-tokens/me/no-such-token", token: h.tokenA, status: 404},
		{name: "OK", method: "DELETE", path: path, token: h.tokenA, status: 204},
		{name: "ErrAgain", method: "DELETE", path: path, token: h.tokenA, status: 404},
	})
	t.Run("Stored", func(t *testing.T) {
		if got := pushTokensOf(t, h, h.alice); len(got) != 0 {
			t.Errorf("alice still has %+v", got)
		}
		if got := pushTokensOf(t, h, h.bob); len(got) != 1 || got[0].Token != "bobs-phone" {
			t.Errorf("bob's push tokens = %+v, want his phone kept", got)
		}
	})
}

func TestPushTokensOpenAPI(t *testing.T) {
	h := newHarness(t)
	paths := h.do("GET", "/api/openapi.json", "", nil).JSON(t)["paths"].(map[string]any)
	post := paths["/fcm-tokens/me"].(map[string]any)["post"].(map[string]any)
	if desc := post["description"].(string); !strings.Contains(desc, "fcm_credentials_file") || !strings.Contains(desc, "otherwise the token is only stored") {
		t.Errorf("POST /fcm-tokens/me description = %q, want it to say tokens are sent to only with fcm_credentials_file set", desc)
	}
}
