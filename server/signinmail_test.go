package server_test

import (
	"log/slog"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/recur-journal/recur/server"
)

// A sign-in mail asked for an address without an account is said in the
// owner's log, with the fix, and not in the answer, which is the one every
// address gets.
func TestSignInMailForAnUnknownAddressIsLogged(t *testing.T) {
	var out syncBuffer
	h, mb := accountsHarness(t, func(o *server.Options) { o.Logger = slog.New(slog.NewTextHandler(&out, nil)) })
	app := h.browser()
	unknown := app.do("POST", "/api/magic-links/mails", map[string]string{"email": "Stranger@Example.com"})
	known := app.do("POST", "/api/magic-links/mails", map[string]string{"email": "alice@example.com"})
	if unknown.Status != 204 || known.Status != unknown.Status || string(known.Body) != string(unknown.Body) {
		t.Fatalf("unknown %d %q, known %d %q: want the same 204", unknown.Status, unknown.Body, known.Status, known.Body)
	}
	if m := mb.next(t); m.To != "alice@example.com" {
		t.Errorf("a mail went to %s, want alice's only", m.To)
	}
	line := waitLogLine(t, &out, "stranger@example.com")
	for _, want := range []string{"no account", "recur user add"} {
		if !strings.Contains(line, want) {
			t.Errorf("the line %q lacks %q", line, want)
		}
	}
	if n := strings.Count(out.String(), "no account has"); n != 1 {
		t.Errorf("%d lines say an address has no account, want 1:\n%s", n, out.String())
	}
}

// waitLogLine waits, boundedly, for a line of the log that holds s, and
// returns it.
func waitLogLine(t *testing.T, out *syncBuffer, s string) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		for _, l := range strings.Split(out.String(), "\n") {
			if strings.Contains(l, s) {
				return l
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no line with %q within 10s; the log:\n%s", s, out.String())
		}
		runtime.Gosched()
	}
}
