package server_test

import (
	"context"
	"crypto/ecdh"
	"crypto/rand"
	"encoding/base64"
	"slices"
	"strings"
	"testing"

	"github.com/recur-journal/recur/notify"
	"github.com/recur-journal/recur/server"
	"github.com/recur-journal/recur/store/storetest"
)

// browserKeys are a PushSubscription's keys as a browser gives them.
func browserKeys(t *testing.T) map[string]any {
	k, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	auth := make([]byte, 16)
	rand.Read(auth)
	return map[string]any{"p256dh": base64.RawURLEncoding.EncodeToString(k.PublicKey().Bytes()), "auth": base64.RawURLEncoding.EncodeToString(auth)}
}

// A browser's PushSubscription JSON registers it, for the account that
// registered it last; the list shows it to its account alone, another account's is 404, and bad keys, a loopback
// endpoint and a missing scope are refused. The VAPID key is served.
func TestPushSubscriptions(t *testing.T) {
	h := newHarness(t, func(o *server.Options) {
		o.Notifier = notify.New(notify.Options{Store: o.Store, Logger: o.Logger, DataDir: t.TempDir()})
	})
	keys := browserKeys(t)
	sub := map[string]any{"endpoint": "https://93.184.215.14/push/abc", "expirationTime": nil, "keys": keys}
	// Bob subscribed on this browser first; alice's subscription (twice)
	// takes the endpoint over.
	if res := h.do("POST", "/api/push-subscriptions", h.tokenB, sub); res.Status != 201 {
		t.Fatalf("bob subscribes: %d %s", res.Status, res.Body)
	}
	h.do("POST", "/api/push-subscriptions", h.tokenA, sub)
	res := h.do("POST", "/api/push-subscriptions", h.tokenA, sub)
	if res.Status != 201 {
		t.Fatalf("subscribe: %d %s", res.Status, res.Body)
	}
	data := res.JSON(t)["data"].(map[string]any)
	id := data["id"].(string)
	if got, want := len(data["events"].([]any)), len(notify.DefaultPushEvents); got != want {
		t.Errorf("default events = %v, want %d", data["events"], want)
	}
	h.run([]scenario{
		{name: "VAPIDKey", method: "GET", path: "/api/push-subscriptions/vapid-key", token: h.tokenA, status: 200, contains: []string{`"public_key":"B`}},
		{name: "List", method: "GET", path: "/api/push-subscriptions", token: h.tokenA, status: 200,
			contains: []string{`"endpoint":"https://93.184.215.14/push/abc"`, `"total":1`}, notContains: []string{keys["auth"].(string)}},
		{name: "ListOthersEmpty", method: "GET", path: "/api/push-subscriptions", token: h.tokenB, status: 200, contains: []string{`"total":0`}},
		{name: "NotAmongChannels", method: "GET", path: "/api/channels", token: h.tokenA, status: 200, contains: []string{`"total":0`}},
		{name: "ErrLoopback", method: "POST", path: "/api/push-subscriptions", token: h.tokenA,
			body: map[string]any{"endpoint": "http://127.0.0.1:9/push", "keys": keys}, status: 422, contains: []string{`"endpoint":["The url leads to a loopback`}},
		{name: "ErrKey", method: "POST", path: "/api/push-subscriptions", token: h.tokenA,
			body: map[string]any{"endpoint": "https://93.184.215.14/push/x", "keys": map[string]any{"p256dh": "BAAA", "auth": keys["auth"]}}, status: 422, contains: []string{`"p256dh":[`}},
		{name: "ErrAuth", method: "POST", path: "/api/push-subscriptions", token: h.tokenA,
			body: map[string]any{"endpoint": "https://93.184.215.14/push/x", "keys": map[string]any{"p256dh": keys["p256dh"], "auth": "AAAA"}}, status: 422, contains: []string{`"auth":[`}},
		{name: "ErrEvent", method: "POST", path: "/api/push-subscriptions", token: h.tokenA,
			body: map[string]any{"endpoint": "https://93.184.215.14/push/x", "keys": keys, "events": []string{"nope"}}, status: 422, contains: []string{`"events":[`}},
		{name: "ErrScope", method: "POST", path: "/api/push-subscriptions", token: storetest.MustCreateToken(t, h.store, h.alice.ID, "settings:write"),
			body: sub, status: 403},
		{name: "ErrDeleteAnother", method: "DELETE", path: "/api/push-subscriptions/" + id, token: h.tokenB, status: 404},
		{name: "ErrDeleteThroughChannels", method: "DELETE", path: "/api/channels/" + id, token: h.tokenA, status: 404},
		{name: "Delete", method: "DELETE", path: "/api/push-subscriptions/" + id, token: h.tokenA, status: 204},
		{name: "ListEmpty", method: "GET", path: "/api/push-subscriptions", token: h.tokenA, status: 200, contains: []string{`"total":0`}},
	})
}

// A push subscription made in a browser session ends with it: signing out
// on the laptop stops the laptop's notifications, being signed out from
// elsewhere stops the phone's, and one made with a bearer token stays, so
// a shared computer tells the next person nothing of the last one's
// journal.
func TestPushSubscriptionEndsWithItsSession(t *testing.T) {
	h := newHarness(t, func(o *server.Options) {
		o.Notifier = notify.New(notify.Options{Store: o.Store, Logger: o.Logger, DataDir: t.TempDir()})
	})
	carol := passwordUser(t, h, "carol@example.com")
	laptop := signedIn(t, h, carol, firefoxLinux)
	phone := signedIn(t, h, carol, safariPhone)
	token := storetest.MustCreateToken(t, h.store, carol.ID, "settings:read", "devices:write")
	subscribe := func(name string, do func(method, path string, body any) response) {
		t.Helper()
		sub := map[string]any{"endpoint": "https://93.184.215.14/push/" + name, "keys": browserKeys(t)}
		if res := do("POST", "/api/push-subscriptions", sub); res.Status != 201 {
			t.Fatalf("%s subscribes: %d %s", name, res.Status, res.Body)
		}
	}
	subscribe("laptop", laptop.do)
	subscribe("phone", phone.do)
	subscribe("app", func(method, path string, body any) response { return h.do(method, path, token, body) })
	endpoints := func() string {
		t.Helper()
		res := h.do("GET", "/api/push-subscriptions", token, nil)
		if res.Status != 200 {
			t.Fatalf("list: %d %s", res.Status, res.Body)
		}
		var names []string
		for _, item := range res.JSON(t)["data"].([]any) {
			names = append(names, strings.TrimPrefix(item.(map[string]any)["endpoint"].(string), "https://93.184.215.14/push/"))
		}
		slices.Sort(names)
		return strings.Join(names, " ")
	}
	if got := endpoints(); got != "app laptop phone" {
		t.Fatalf("subscribed: %q, want app laptop phone", got)
	}
	if res := laptop.do("POST", "/api/logout", nil); res.Status != 200 {
		t.Fatalf("sign out on the laptop: %d %s", res.Status, res.Body)
	}
	if got := endpoints(); got != "app phone" {
		t.Errorf("after the laptop signed out: %q, want app phone", got)
	}
	// What recur user set-password and a password change elsewhere do.
	if _, err := h.store.DeleteUserSessions(context.Background(), carol.ID); err != nil {
		t.Fatal(err)
	}
	if got := endpoints(); got != "app" {
		t.Errorf("after every session ended: %q, want app, the token's", got)
	}
}
