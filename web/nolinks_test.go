package web_test

import (
	"io"
	"log/slog"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/recur-journal/recur/journal"
	"github.com/recur-journal/recur/mail"
	"github.com/recur-journal/recur/server"
	"github.com/recur-journal/recur/store/storetest"
	"github.com/recur-journal/recur/web"
)

// Without base_url (and beyond loopback) the sign-in page says links cannot
// be mailed and why, and its form mails a code and asks for it.
func TestSignInWithoutBaseURLMailsACode(t *testing.T) {
	s := storetest.MustOpen(t)
	h := &harness{t: t, store: s, srv: httptest.NewServer(nil), events: journal.NewEvents(), mail: &mailbox{ch: make(chan mail.Message, 16)}}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	api := server.New(server.Options{Store: s, Logger: log, Secret: []byte("0123456789abcdef0123456789abcdef"), Events: h.events, Mailer: h.mail})
	api.Mount(web.New(web.Options{Store: s, Accounts: api.Accounts(), Logger: log, Events: h.events, NoMailedLinks: true}))
	h.srv.Config.Handler = api.Handler()
	api.Start()
	t.Cleanup(api.Stop)
	t.Cleanup(h.srv.Close)
	h.alice = storetest.MustCreateUser(t, s, "alice@example.com")

	b := h.anonymous()
	mustHave(t, b.get("/"), 200, `data-testid="no-base-url"`, "base_url", "RECUR_SERVER_BASE_URL")
	mustHave(t, b.post("/sign-in", url.Values{"email": {"alice@example.com"}}), 200, `action="/sign-in/code/check"`)
	m := h.mail.next(t)
	if m.Code == "" || m.Link != "" || strings.Contains(m.Text, "http") {
		t.Fatalf("the mail carries link %q, code %q; want a code alone:\n%s", m.Link, m.Code, m.Text)
	}

	// A verification mail would carry a link: the settings page says why
	// none is sent.
	// Signed in by password, so the address is not verified yet.
	h.bob = storetest.MustCreateUser(t, s, "bob@example.com")
	setPassword(t, s, h.bob, "correct horse battery")
	bob := h.anonymous()
	if got := bob.post("/sign-in/password", url.Values{"email": {"bob@example.com"}, "password": {"correct horse battery"}}); got.status != 303 {
		t.Fatalf("password sign-in answered %d", got.status)
	}
	mustHave(t, bob.post("/settings/verification", url.Values{}), 503, "base_url")
}
