package web_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"

	"github.com/recur-journal/recur/mail"
	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

// mailbox keeps the mail the server queues.
type mailbox struct{ ch chan mail.Message }

func (m *mailbox) Enqueue(msg mail.Message) { m.ch <- msg }

// next waits (at most five seconds) for the next mail: sign-in mail is made
// in the background.
func (m *mailbox) next(t *testing.T) mail.Message {
	t.Helper()
	select {
	case msg := <-m.ch:
		return msg
	case <-time.After(5 * time.Second):
		t.Fatal("no mail was sent")
	}
	return mail.Message{}
}

func mustHave(t *testing.T, a answer, status int, wants ...string) {
	t.Helper()
	if a.status != status {
		t.Fatalf("status %d, want %d: %.300s", a.status, status, a.body)
	}
	for _, w := range wants {
		if !strings.Contains(a.body, w) {
			t.Errorf("the page lacks %q", w)
		}
	}
}

func setPassword(t *testing.T, s *store.Store, u *store.User, pw string) {
	t.Helper()
	hash, err := store.HashPassword(pw)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetPasswordHash(context.Background(), u.ID, hash); err != nil {
		t.Fatal(err)
	}
}

func TestSignInByCode(t *testing.T) {
	h := newHarness(t, nil)
	b := h.anonymous()
	mustHave(t, b.post("/sign-in/code", url.Values{"email": {"not an address"}}), 422, "valid email address")
	mustHave(t, b.post("/sign-in/code", url.Values{"email": {" Alice@Example.com "}}), 200, `name="code"`)
	code := h.mail.next(t).Code
	if code == "" {
		t.Fatal("the mail carries no code")
	}
	mustHave(t, b.post("/sign-in/code/check", url.Values{"email": {"alice@example.com"}, "code": {"000000x"}}), 422, "code")
	if got := b.post("/sign-in/code/check", url.Values{"email": {"alice@example.com"}, "code": {code}}); got.status != http.StatusSeeOther {
		t.Fatalf("a right code answered %d", got.status)
	}
	mustHave(t, b.get("/"), 200, `data-testid="write"`)
	// A session, not a token: the account has no token.
	if list, _, _ := h.store.ListLiveTokens(context.Background(), h.alice.ID, store.Page{Page: 1, Limit: 10}); len(list) != 0 {
		t.Errorf("signing in by code made %d tokens", len(list))
	}
}

func TestSignInByPasswordAndTwoFactor(t *testing.T) {
	h := newHarness(t, nil)
	setPassword(t, h.store, h.alice, "correct horse battery")
	b := h.anonymous()
	mustHave(t, b.post("/sign-in/password", url.Values{"email": {"alice@example.com"}, "password": {"wrong password"}}), 422, "These credentials do not match")
	if got := b.post("/sign-in/password", url.Values{"email": {"alice@example.com"}, "password": {"correct horse battery"}}); got.status != http.StatusSeeOther {
		t.Fatalf("a right password answered %d", got.status)
	}
	mustHave(t, b.get("/"), 200, `data-testid="write"`)

	// Turning two-factor on needs the session confirmed.
	mustHave(t, b.post("/settings/security/two-factor", nil), http.StatusLocked, `data-testid="confirm"`)
	mustHave(t, b.post("/settings/security/confirm", url.Values{"password": {"nope nope"}}), 422, "The password is incorrect.")
	if got := b.post("/settings/security/confirm", url.Values{"password": {"correct horse battery"}}); got.status != http.StatusSeeOther {
		t.Fatalf("confirming answered %d", got.status)
	}
	setup := b.post("/settings/security/two-factor", nil)
	mustHave(t, setup, 200, "<svg")
	m := regexp.MustCompile(`data-testid="secret">([A-Z2-7]+)<`).FindStringSubmatch(setup.body)
	if m == nil {
		t.Fatal("no secret shown")
	}
	mustHave(t, b.post("/settings/security/two-factor/confirm", url.Values{"code": {"12"}}), 422, "The two-factor code is invalid.")
	code, _ := totp.GenerateCode(m[1], h.store.Now())
	on := b.post("/settings/security/two-factor/confirm", url.Values{"code": {code}})
	mustHave(t, on, 200, `data-testid="recovery-codes"`)
	recovery := regexp.MustCompile(`<li><code>([a-z0-9-]+)</code></li>`).FindStringSubmatch(on.body)
	if recovery == nil {
		t.Fatal("no recovery codes shown")
	}

	// The next sign-in asks for the second factor.
	c := h.anonymous()
	c.post("/sign-in/password", url.Values{"email": {"alice@example.com"}, "password": {"correct horse battery"}})
	mustHave(t, c.get("/"), 200, `data-testid="two-factor"`)
	mustHave(t, c.post("/sign-in/two-factor", url.Values{"code": {"000000"}}), 422, "The two-factor code is invalid.")
	if got := c.post("/sign-in/two-factor", url.Values{"recovery_code": {recovery[1]}}); got.status != http.StatusSeeOther {
		t.Fatalf("a recovery code answered %d", got.status)
	}
	mustHave(t, c.get("/"), 200, `data-testid="write"`)
}

func TestSecurityPage(t *testing.T) {
	h := newHarness(t, nil)
	b := h.signIn(h.alice)
	t.Run("PasswordNeedsConfirmation", func(t *testing.T) {
		mustHave(t, b.post("/settings/security/password", url.Values{"password": {"a new password"}, "password_confirmation": {"a new password"}}),
			http.StatusLocked, "Mail me a code")
		sent := b.post("/settings/security/confirm/code", nil)
		mustHave(t, sent, http.StatusSeeOther)
		mustHave(t, b.get(sent.location), 200, "A code is on its way")
		code := h.mail.next(t).Code
		mustHave(t, b.post("/settings/security/confirm", url.Values{"code": {"999999x"}}), 422)
		if got := b.post("/settings/security/confirm", url.Values{"code": {code}}); got.status != http.StatusSeeOther {
			t.Fatalf("confirming by code answered %d", got.status)
		}
		mustHave(t, b.post("/settings/security/password", url.Values{"password": {"short"}, "password_confirmation": {"short"}}), 422, "at least 8 characters")
		mustHave(t, b.post("/settings/security/password", url.Values{"password": {"a new password"}, "password_confirmation": {"another"}}), 422, "do not match")
		if got := b.post("/settings/security/password", url.Values{"password": {"a new password"}, "password_confirmation": {"a new password"}}); got.status != http.StatusSeeOther {
			t.Fatalf("setting the password answered %d", got.status)
		}
		u, _ := h.store.FindUserByID(context.Background(), h.alice.ID)
		if !u.PasswordMatches("a new password") {
			t.Error("the password was not set")
		}
	})
	t.Run("AnotherUsersSessionAndTokenAre404", func(t *testing.T) {
		h.signIn(h.bob)
		sessions, _, _ := h.store.ListSessions(context.Background(), h.bob.ID, store.Page{Page: 1, Limit: 10})
		if len(sessions) == 0 {
			t.Fatal("bob has no session")
		}
		mustHave(t, b.post("/settings/security/sessions/"+sessions[0].ID+"/delete", nil), 404)
		token := storetest.MustCreateToken(t, h.store, h.bob.ID)
		id, _, _ := strings.Cut(token, "|")
		mustHave(t, b.post("/settings/security/tokens/"+id+"/delete", nil), 404)
	})
	t.Run("RevokedTokenAnswers401", func(t *testing.T) {
		token := storetest.MustCreateToken(t, h.store, h.alice.ID)
		id, _, _ := strings.Cut(token, "|")
		mustHave(t, b.get("/settings/security"), 200, `data-token-id="`+id+`"`)
		if got := b.post("/settings/security/tokens/"+id+"/delete", nil); got.status != http.StatusSeeOther {
			t.Fatalf("revoking answered %d", got.status)
		}
		req, _ := http.NewRequest("GET", h.srv.URL+"/api/users/me", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		if got := h.anonymous().send(req); got.status != http.StatusUnauthorized {
			t.Errorf("a revoked token answered %d", got.status)
		}
	})
	t.Run("SignOutEverywhereElse", func(t *testing.T) {
		other := h.signIn(h.alice)
		if got := b.post("/settings/security/sessions/delete", nil); got.status != http.StatusSeeOther {
			t.Fatalf("answered %d", got.status)
		}
		mustHave(t, other.get("/"), 200, `action="/sign-in"`)
		mustHave(t, b.get("/settings/security"), 200, "This browser")
	})
}

func TestDeleteAccountPage(t *testing.T) {
	h := newHarness(t, nil)
	setPassword(t, h.store, h.alice, "correct horse battery")
	b := h.signIn(h.alice)
	mustHave(t, b.post("/settings/security/account/delete", url.Values{"confirm": {"yes"}}), http.StatusLocked, `data-testid="confirm"`)
	b.post("/settings/security/confirm", url.Values{"password": {"correct horse battery"}})
	got := b.post("/settings/security/account/delete", url.Values{"confirm": {"yes"}})
	if got.status != http.StatusSeeOther || got.location != "/goodbye" {
		t.Fatalf("deleting answered %d to %q", got.status, got.location)
	}
	mustHave(t, b.get("/goodbye"), 200, "Your account is deleted")
	if _, err := h.store.FindUserByID(context.Background(), h.alice.ID); store.ErrorCode(err) != store.ENOTFOUND {
		t.Errorf("the user is still there: %v", err)
	}
	mustHave(t, b.get("/"), 200, `action="/sign-in"`)
}

func TestAccountSettings(t *testing.T) {
	h := newHarness(t, nil)
	// A user with no timezone chosen yet, whatever zone the tests give
	// theirs, signed in by password, so the address stays unverified (mail
	// sign-in verifies it).
	carol := &store.User{Email: "carol@example.com", Name: "Carol"}
	if err := h.store.CreateUser(context.Background(), carol); err != nil {
		t.Fatal(err)
	}
	setPassword(t, h.store, carol, "correct horse battery")
	b := h.anonymous()
	b.post("/sign-in/password", url.Values{"email": {"carol@example.com"}, "password": {"correct horse battery"}})
	mustHave(t, b.get("/settings"), 200, "data-offer-browser-zone", `data-testid="unverified"`, "/settings/security")
	mustHave(t, b.post("/settings", url.Values{"name": {"Alice"}, "timezone": {"Mars/Olympus"}, "app_locale": {"en"}}), 422, "IANA time zone name")
	mustHave(t, b.post("/settings", url.Values{"name": {"Alice"}, "timezone": {"UTC"}, "app_locale": {"!!"}}), 422, "language tag")
	mustHave(t, b.post("/settings", url.Values{"name": {strings.Repeat("x", 256)}, "timezone": {"UTC"}, "app_locale": {"en"}}), 422, "255 characters")
	if got := b.post("/settings", url.Values{"name": {"Alice"}, "timezone": {"Europe/Lisbon"}, "app_locale": {"pt-br"}}); got.status != http.StatusSeeOther {
		t.Fatalf("saving answered %d", got.status)
	}
	mustHave(t, b.get("/settings"), 200, `value="Alice"`, "<option selected>Europe/Lisbon</option>", `value="pt-BR" selected`)
	if got := b.post("/settings/verification", nil); got.status != http.StatusSeeOther {
		t.Fatalf("resend answered %d", got.status)
	}
	if h.mail.next(t).Link == "" {
		t.Error("the verification mail carries no link")
	}
}
