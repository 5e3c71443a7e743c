package web_test

import (
	"crypto/ecdh"
	"crypto/rand"
	"encoding/base64"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/recur-journal/recur/journal"
	"github.com/recur-journal/recur/notify"
	"github.com/recur-journal/recur/server"
	"github.com/recur-journal/recur/store/storetest"
	"github.com/recur-journal/recur/web"
)

// newPushHarness is newHarness with a notifier that keeps VAPID keys in
// a data folder, as the served app's does.
func newPushHarness(t *testing.T) *harness {
	dir := t.TempDir()
	s := storetest.MustOpenAt(t, filepath.Join(dir, "recur.db"), nil)
	h := &harness{t: t, store: s, srv: httptest.NewServer(nil), events: journal.NewEvents(), mail: &mailbox{}}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	n := notify.New(notify.Options{Store: s, Logger: log, DataDir: dir})
	api := server.New(server.Options{Store: s, Logger: log, BaseURL: h.srv.URL, Secret: []byte("0123456789abcdef0123456789abcdef"),
		Events: h.events, Notifier: n})
	api.Mount(web.New(web.Options{Store: s, Accounts: api.Accounts(), Logger: log, Events: h.events, Notifier: n}))
	h.srv.Config.Handler = api.Handler()
	t.Cleanup(h.srv.Close)
	h.alice = storetest.MustCreateUser(t, s, "alice@example.com")
	h.bob = storetest.MustCreateUser(t, s, "bob@example.com")
	return h
}

// The notifications page offers to turn on notifications on this device
// with the server's VAPID key; the subscription the page's script posts
// on the cookie session is accepted and listed as a push channel with a
// test button, out of another person's reach.
func TestPushOnThisDevice(t *testing.T) {
	h := newPushHarness(t)
	alice, bob := h.signIn(h.alice), h.signIn(h.bob)
	page := alice.get("/settings/notifications").body
	m := regexp.MustCompile(`data-testid="push" data-vapid-key="([A-Za-z0-9_-]{80,})"`).FindStringSubmatch(page)
	if m == nil || !strings.Contains(page, "Turn on notifications on this device") || !regexp.MustCompile(`src="/static/[0-9a-f]+/push.js"`).MatchString(page) {
		t.Fatalf("no push section with a VAPID key:\n%s", page)
	}
	key, _ := ecdh.P256().GenerateKey(rand.Reader)
	auth := make([]byte, 16)
	rand.Read(auth)
	enc := base64.RawURLEncoding.EncodeToString
	body := `{"endpoint":"https://93.184.215.14/push/send/abc","expirationTime":null,"keys":{"p256dh":"` + enc(key.PublicKey().Bytes()) + `","auth":"` + enc(auth) + `"}}`
	req, _ := http.NewRequest("POST", h.srv.URL+"/api/push-subscriptions", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", h.srv.URL)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	if a := alice.send(req); a.status != 201 {
		t.Fatalf("the script's subscription: %d %s", a.status, a.body)
	}
	page = alice.get("/settings/notifications?done=push").body
	row := regexp.MustCompile(`data-channel-id="([^"]+)" data-kind="webpush"`).FindStringSubmatch(page)
	if row == nil || !strings.Contains(page, "Push: <span class=\"mono\">93.184.215.14</span>") || !strings.Contains(page, "Notifications are on for this device.") {
		t.Fatalf("the subscription is not listed:\n%s", page)
	}
	if a := bob.post("/settings/notifications/"+row[1]+"/test", nil); a.status != 404 {
		t.Errorf("bob tests alice's subscription: %d, want 404", a.status)
	}
	if a := alice.post("/settings/notifications/"+row[1]+"/test", nil); a.status != 303 {
		t.Errorf("test: %d %s", a.status, a.body)
	}
}
