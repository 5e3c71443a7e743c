package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// "Confirm it is you" goes on with the action that asked for it: two-factor
// set-up shows its QR code at once after a mailed code, and deleting the
// account comes back to its button, open. The code step has an address of
// its own, so a reload shows it again and mails nothing.
func TestConfirmGoesOnWithTheAction(t *testing.T) {
	h := newHarness(t, nil)
	t.Run("TwoFactorByMailedCode", func(t *testing.T) {
		b := h.signIn(h.alice)
		mustHave(t, b.post("/settings/security/two-factor", nil), http.StatusLocked, `name="next" value="two-factor"`)
		sent := b.post("/settings/security/confirm/code", url.Values{"next": {"two-factor"}})
		if sent.status != http.StatusSeeOther {
			t.Fatalf("mailing the code answered %d: %.300s", sent.status, sent.body)
		}
		code := h.mail.next(t).Code
		for range 2 { // and a reload
			mustHave(t, b.get(sent.location), 200, `id="confirm-code"`, `name="next" value="two-factor"`)
		}
		select {
		case m := <-h.mail.ch:
			t.Fatalf("the reload mailed again: %q", m.Subject)
		default:
		}
		mustHave(t, b.post("/settings/security/confirm", url.Values{"code": {code}, "next": {"two-factor"}}), 200, `data-testid="qr"`, "<svg")
	})
	t.Run("DeleteByPassword", func(t *testing.T) {
		setPassword(t, h.store, h.bob, "correct horse battery")
		b := h.signIn(h.bob)
		mustHave(t, b.post("/settings/security/account/delete", url.Values{"confirm": {"yes"}}), http.StatusLocked, `name="next" value="delete"`)
		back := b.post("/settings/security/confirm", url.Values{"password": {"correct horse battery"}, "next": {"delete"}})
		if back.status != http.StatusSeeOther || !strings.Contains(back.location, "next=delete") {
			t.Fatalf("confirming answered %d to %q", back.status, back.location)
		}
		page := b.get(back.location)
		mustHave(t, page, 200, "press Delete my account for good")
		if !strings.Contains(page.body, `<details class="confirm" open>`) {
			t.Error("the delete button is not shown open")
		}
		if got := b.post("/settings/security/account/delete", url.Values{"confirm": {"yes"}}); got.location != "/goodbye" {
			t.Fatalf("deleting answered %d to %q", got.status, got.location)
		}
	})
	t.Run("ReloadingAnActionIsNot404", func(t *testing.T) {
		b := h.signIn(h.alice)
		for _, path := range []string{"/settings/security/confirm", "/settings/security/confirm/code", "/settings/security/two-factor",
			"/settings/security/two-factor/confirm", "/settings/security/password", "/settings/security/account/delete"} {
			if got := b.get(path); got.status != http.StatusSeeOther || got.location != "/settings/security" {
				t.Errorf("GET %s answered %d to %q", path, got.status, got.location)
			}
		}
	})
}
