package server_test

import (
	"context"
	"strings"
	"testing"

	"golang.org/x/text/unicode/norm"

	"github.com/recur-journal/recur/server"
	"github.com/recur-journal/recur/store"
)

// josé, written once with é as one character (NFC) and once as e and a
// combining accent (NFD): the same address to a person.
var (
	joseNFC = norm.NFC.String("josé@example.com")
	joseNFD = norm.NFD.String("josé@example.com")
)

// variants are ways a person may type the address stored as want.
func variants(want string) map[string]string {
	return map[string]string{
		"Case":           strings.ToUpper(want),
		"Spaces":         "  " + want + "   ",
		"TrailingSpaces": want + strings.Repeat(" ", 7),
		"NFD":            norm.NFD.String(want),
		"NFDUpperSpaced": " " + norm.NFD.String(strings.ToUpper(want)) + " ",
	}
}

// addJose makes the account josé@example.com with a password.
func addJose(t *testing.T, h *harness) {
	t.Helper()
	hash, err := store.HashPassword("correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	if err := h.store.CreateUser(context.Background(), &store.User{Email: joseNFC, PasswordHash: hash}); err != nil {
		t.Fatal(err)
	}
}

func TestLoginAddressVariants(t *testing.T) {
	h, _ := accountsHarness(t)
	addJose(t, h)
	for name, email := range variants(joseNFC) {
		t.Run(name, func(t *testing.T) {
			res := h.browser().do("POST", "/api/login", map[string]string{"email": email, "password": "correct horse battery"})
			if res.Status != 200 {
				t.Fatalf("login as %q: %d %s", email, res.Status, res.Body)
			}
		})
	}
}

// The lockout bypass: the limiter keyed on the address as sent while the
// lookup trimmed it, so each added space gave five fresh tries, and the
// right password then signed in during the lockout.
func TestLoginLockoutHoldsForEveryVariant(t *testing.T) {
	h, _ := accountsHarness(t)
	addJose(t, h)
	b := h.browser()
	for i := range 5 {
		if res := b.do("POST", "/api/login", map[string]string{"email": joseNFC, "password": "wrong guess"}); res.Status != 422 {
			t.Fatalf("failure %d: %d %s", i+1, res.Status, res.Body)
		}
	}
	for name, email := range variants(joseNFC) {
		t.Run(name, func(t *testing.T) {
			res := b.do("POST", "/api/login", map[string]string{"email": email, "password": "correct horse battery"})
			if res.Status != 429 || res.Header.Get("Retry-After") == "" {
				t.Fatalf("the right password as %q during the lockout: %d %s, want 429 with Retry-After", email, res.Status, res.Body)
			}
		})
	}
	if res := b.do("GET", "/api/users/me", nil); res.Status != 401 {
		t.Fatalf("signed in during the lockout: %d %s", res.Status, res.Body)
	}
}

func TestMagicMailAddressVariants(t *testing.T) {
	h, mb := accountsHarness(t)
	if err := h.store.CreateUser(context.Background(), &store.User{Email: joseNFC}); err != nil {
		t.Fatal(err)
	}
	app := h.browser()
	// The per-address limit allows three mails; every variant counts
	// against the one address.
	for _, email := range []string{joseNFD, " JOSÉ@example.com ", strings.ToUpper(joseNFD) + "  "} {
		if res := app.do("POST", "/api/magic-links/mails", map[string]string{"email": email}); res.Status != 204 {
			t.Fatalf("mails %q: %d %s", email, res.Status, res.Body)
		}
		m := mb.next(t)
		if m.To != joseNFC {
			t.Fatalf("mail for %q went to %q, want %q", email, m.To, joseNFC)
		}
		code := codeIn(t, m)
		res := app.do("POST", "/api/magic-links/tokens", map[string]string{"email": "\t" + strings.ToUpper(joseNFD) + " ", "code": code})
		if res.Status != 200 {
			t.Fatalf("exchange as a variant of %q: %d %s", email, res.Status, res.Body)
		}
	}
	if res := app.do("POST", "/api/magic-links/mails", map[string]string{"email": joseNFC + "    "}); res.Status != 429 {
		t.Fatalf("a fourth mail to a variant of the address: %d %s, want 429", res.Status, res.Body)
	}
}

func TestSignupStoresTheNormalForm(t *testing.T) {
	h, mb := accountsHarness(t, func(o *server.Options) { o.Signup = true })
	app := h.browser()
	if res := app.do("POST", "/api/magic-links/mails", map[string]string{"email": "  " + strings.ToUpper(joseNFD) + " "}); res.Status != 204 {
		t.Fatalf("mails: %d %s", res.Status, res.Body)
	}
	if m := mb.next(t); m.To != joseNFC {
		t.Fatalf("mail to %q, want %q", m.To, joseNFC)
	}
	u, err := h.store.FindUserByEmail(context.Background(), joseNFC)
	if err != nil {
		t.Fatal(err)
	}
	if u.Email != joseNFC {
		t.Fatalf("stored %q, want %q", u.Email, joseNFC)
	}
	// The same person again, typed differently, is the same account.
	app.do("POST", "/api/magic-links/mails", map[string]string{"email": joseNFD})
	mb.next(t)
	if u2, err := h.store.FindUserByEmail(context.Background(), strings.ToUpper(joseNFD)); err != nil || u2.ID != u.ID {
		t.Fatalf("second sign-up made another account: %v %v", u2, err)
	}
}
