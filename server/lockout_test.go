package server_test

import (
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"

	"github.com/recur-journal/recur/server"
	"github.com/recur-journal/recur/store"
)

// behindProxy trusts the loopback proxy, so each request may name its own
// client address, as guesses spread over many addresses would come.
func behindProxy(o *server.Options) {
	o.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
}

// from is a browser whose next requests come from the n-th address.
func (b *browser) from(n int) *browser {
	b.header.Set("X-Forwarded-For", "198.51."+strconv.Itoa(n/250)+"."+strconv.Itoa(n%250+1))
	return b
}

// Wrong passwords are counted per account whatever address they come from:
// ten lock password sign-in for 15 minutes, the right password included,
// with the answer a wrong password gets for any address, known or not. The
// account is mailed once; sign-in by mailed link goes on working, and the
// lock ends by itself.
func TestPasswordGuessesLockTheAccount(t *testing.T) {
	h, mb := accountsHarness(t, behindProxy)
	user := *h.alice
	setPassword(t, h, &user, "correct horse battery")
	attacker := h.browser()
	var wrong response
	for i := range 10 {
		wrong = attacker.from(i).do("POST", "/api/login", map[string]string{"email": user.Email, "password": "guess " + strconv.Itoa(i)})
		if wrong.Status != 422 {
			t.Fatalf("guess %d: %d %s", i+1, wrong.Status, wrong.Body)
		}
	}
	owner := h.browser().from(1000)
	locked := owner.do("POST", "/api/login", map[string]string{"email": user.Email, "password": "correct horse battery"})
	if locked.Status != wrong.Status || string(locked.Body) != string(wrong.Body) {
		t.Fatalf("the right password during the lock: %d %s, want the answer of a wrong one: %d %s", locked.Status, locked.Body, wrong.Status, wrong.Body)
	}
	m := mb.next(t)
	if m.To != user.Email || !strings.Contains(m.Subject, "paused sign-in") || !strings.Contains(m.Text, "recur user unlock "+user.Email) ||
		!strings.Contains(m.Text, "mailed link or code still works") {
		t.Fatalf("the lock's mail: %+v", m)
	}

	t.Run("UnknownAddressAnswersTheSame", func(t *testing.T) {
		for i := range 12 {
			res := h.browser().from(2000+i).do("POST", "/api/login", map[string]string{"email": "nobody@example.com", "password": "guess"})
			if res.Status != wrong.Status || string(res.Body) != string(wrong.Body) {
				t.Fatalf("try %d at an unknown address: %d %s, want %d %s", i+1, res.Status, res.Body, wrong.Status, wrong.Body)
			}
		}
	})
	t.Run("MailedLinkStillSignsIn", func(t *testing.T) {
		b := h.browser().from(3000)
		b.header.Set("Origin", h.srv.URL)
		if res := b.do("POST", "/api/magic-links/mails", map[string]string{"email": user.Email}); res.Status != 204 {
			t.Fatalf("mails: %d %s", res.Status, res.Body)
		}
		// The next mail is the link: the lock's mail went once.
		link := mb.next(t)
		if res := b.do("GET", linkRE.FindString(link.Text), nil); res.Status != 302 {
			t.Fatalf("the link during the lock: %d %s (mail %q)", res.Status, res.Body, link.Subject)
		}
	})
	t.Run("EndsByItself", func(t *testing.T) {
		h.advance(15 * time.Minute)
		res := h.browser().from(4000).do("POST", "/api/login", map[string]string{"email": user.Email, "password": "correct horse battery"})
		if res.Status != 200 {
			t.Fatalf("the right password after the lock: %d %s", res.Status, res.Body)
		}
	})
	t.Run("ConfirmPasswordCounts", func(t *testing.T) {
		b := h.browser()
		b.do("POST", "/api/login", map[string]string{"email": user.Email, "password": "correct horse battery"})
		// Six wrong at sign-in and four at confirmation are ten for the
		// account (the per-user limit of confirmation allows five a minute).
		for i := range 6 {
			h.browser().from(5000+i).do("POST", "/api/login", map[string]string{"email": user.Email, "password": "guess"})
		}
		for i := range 4 {
			if res := b.do("POST", "/api/user/confirm-password", map[string]string{"password": "guess"}); res.Status != 422 {
				t.Fatalf("wrong confirmation %d: %d %s", i+1, res.Status, res.Body)
			}
		}
		res := b.do("POST", "/api/user/confirm-password", map[string]string{"password": "correct horse battery"})
		if res.Status != 429 || res.Header.Get("Retry-After") == "" || !strings.Contains(string(res.Body), "Too many wrong passwords for this account") {
			t.Fatalf("the right password at confirmation during the lock: %d %s", res.Status, res.Body)
		}
		// Locked again within a day: no second mail. The next mail is the
		// confirmation code asked for now.
		if res := b.do("POST", "/api/user/confirmation-codes", nil); res.Status != 204 {
			t.Fatalf("confirmation-codes: %d %s", res.Status, res.Body)
		}
		if m := mb.next(t); !strings.Contains(m.Subject, "confirmation code") {
			t.Fatalf("a second lock mailed again: %q", m.Subject)
		}
	})
}

// twoFactorUser gives a user with a password two-factor sign-in and
// returns them with the authenticator's secret.
func twoFactorUser(t *testing.T, h *harness) (store.User, string) {
	t.Helper()
	user := *h.alice
	setPassword(t, h, &user, "correct horse battery")
	b := h.browser()
	b.do("POST", "/api/login", map[string]string{"email": user.Email, "password": "correct horse battery"})
	b.do("POST", "/api/user/confirm-password", map[string]string{"password": "correct horse battery"})
	res := b.do("POST", "/api/user/two-factor-authentication", nil)
	if res.Status != 200 {
		t.Fatalf("enable: %d %s", res.Status, res.Body)
	}
	secret := res.JSON(t)["data"].(map[string]any)["secret"].(string)
	code, _ := totp.GenerateCode(secret, h.store.Now())
	if res := b.do("POST", "/api/user/confirmed-two-factor-authentication", map[string]string{"code": code}); res.Status != 200 {
		t.Fatalf("confirm two-factor: %d %s", res.Status, res.Body)
	}
	h.advance(30 * time.Second) // the code of the set-up is used up
	return user, secret
}

// Wrong second factors are counted per account whatever address they come
// from: five lock two-factor sign-in for 15 minutes, on every session and
// for the mailed code's exchange too, and the account is mailed.
func TestTwoFactorGuessesLockTheAccount(t *testing.T) {
	h, mb := accountsHarness(t, behindProxy)
	user, secret := twoFactorUser(t, h)
	login := map[string]string{"email": user.Email, "password": "correct horse battery"}
	attacker := h.browser()
	attacker.do("POST", "/api/login", login)
	for i := range 5 {
		if res := attacker.from(i).do("POST", "/api/two-factor-challenge", map[string]string{"code": "00000" + strconv.Itoa(i)}); res.Status != 422 {
			t.Fatalf("wrong code %d: %d %s", i+1, res.Status, res.Body)
		}
	}
	code, _ := totp.GenerateCode(secret, h.store.Now())
	res := attacker.from(100).do("POST", "/api/two-factor-challenge", map[string]string{"code": code})
	if res.Status != 429 || res.Header.Get("Retry-After") == "" || !strings.Contains(string(res.Body), "Too many wrong two-factor codes") {
		t.Fatalf("the right code during the lock: %d %s", res.Status, res.Body)
	}
	if m := mb.next(t); m.To != user.Email || !strings.Contains(m.Text, "two-factor codes") || !strings.Contains(m.Text, "change your password") {
		t.Fatalf("the lock's mail: %+v", m)
	}
	owner := h.browser().from(200)
	owner.do("POST", "/api/login", login)
	if res := owner.do("POST", "/api/two-factor-challenge", map[string]string{"code": code}); res.Status != 429 {
		t.Fatalf("another session during the lock: %d %s", res.Status, res.Body)
	}
	app := h.browser().from(300)
	app.do("POST", "/api/magic-links/mails", map[string]string{"email": user.Email})
	mailed := codeIn(t, mb.next(t))
	res = app.do("POST", "/api/magic-links/tokens", map[string]string{"email": user.Email, "code": mailed, "two_factor_code": code})
	if res.Status != 429 {
		t.Fatalf("a mailed code with the second factor during the lock: %d %s", res.Status, res.Body)
	}
	h.advance(15 * time.Minute)
	code, _ = totp.GenerateCode(secret, h.store.Now())
	if res := owner.do("POST", "/api/two-factor-challenge", map[string]string{"code": code}); res.Status != 200 {
		t.Fatalf("after the lock: %d %s", res.Status, res.Body)
	}
}

// An authenticator code signs in once: the same code in a second session,
// or for a token, is refused, and the next code works.
func TestTwoFactorCodeWorksOnce(t *testing.T) {
	h, mb := accountsHarness(t)
	user, secret := twoFactorUser(t, h)
	login := map[string]string{"email": user.Email, "password": "correct horse battery"}
	first, second := h.browser(), h.browser()
	first.do("POST", "/api/login", login)
	second.do("POST", "/api/login", login)
	code, _ := totp.GenerateCode(secret, h.store.Now())
	if res := first.do("POST", "/api/two-factor-challenge", map[string]string{"code": code}); res.Status != 200 {
		t.Fatalf("first use: %d %s", res.Status, res.Body)
	}
	res := second.do("POST", "/api/two-factor-challenge", map[string]string{"code": code})
	if res.Status != 422 || !strings.Contains(string(res.Body), "used already") {
		t.Fatalf("the same code in another session: %d %s", res.Status, res.Body)
	}
	app := h.browser()
	app.do("POST", "/api/magic-links/mails", map[string]string{"email": user.Email})
	mailed := codeIn(t, mb.next(t))
	if res := app.do("POST", "/api/magic-links/tokens", map[string]string{"email": user.Email, "code": mailed, "two_factor_code": code}); res.Status != 422 {
		t.Fatalf("the same code for a token: %d %s", res.Status, res.Body)
	}
	h.advance(30 * time.Second)
	next, _ := totp.GenerateCode(secret, h.store.Now())
	if res := second.do("POST", "/api/two-factor-challenge", map[string]string{"code": next}); res.Status != 200 {
		t.Fatalf("the next code: %d %s", res.Status, res.Body)
	}
	if res := second.do("GET", "/api/users/me", nil); res.Status != http.StatusOK {
		t.Fatalf("signed in: %d", res.Status)
	}
}
