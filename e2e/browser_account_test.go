package e2e

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/pquerna/otp/totp"

	"github.com/recur-journal/recur/internal/wait"
	"github.com/recur-journal/recur/store/storetest"
)

// pressAndLoad presses sel and waits, boundedly, until the page the press
// led to has loaded.
func pressAndLoad(t *testing.T, ctx context.Context, sel string) {
	t.Helper()
	stayOnPage(t, ctx)
	press(t, ctx, sel)
	wait.Eventually(t, pageLimit, "a new page after pressing "+sel, func() bool {
		var loaded bool
		err := chromedp.Run(ctx, chromedp.Evaluate(`window.sameLoad !== true && document.readyState === "complete" && !!document.querySelector("main")`, &loaded))
		return err == nil && loaded
	}, pageSeen(ctx))
}

// fill sets the value of the field sel, as typing it would.
func fill(t *testing.T, ctx context.Context, sel, value string) {
	t.Helper()
	if err := chromedp.Run(ctx, chromedp.SetValue(sel, value, chromedp.ByQuery)); err != nil {
		t.Fatalf("%s: cannot fill %s: %v", location(ctx), sel, err)
	}
}

// has reports whether sel matches anything on the page.
func has(t *testing.T, ctx context.Context, sel string) bool {
	t.Helper()
	return count(t, ctx, sel) > 0
}

// securityAction fills in a form of /settings/security with fillIn (when
// not nil) and presses sel; when the page asks to confirm the session
// first, it confirms with a mailed code typed in, as the page offers. The
// page then goes on with the action: two-factor set-up shows at once, and
// any other action's form is back, to fill in and press again. It reports
// whether the page asked.
func securityAction(t *testing.T, ctx context.Context, mails *linkCatcher, sel string, fillIn func()) (asked bool) {
	t.Helper()
	if fillIn != nil {
		fillIn()
	}
	pressAndLoad(t, ctx, sel)
	if !has(t, ctx, `#confirm`) {
		return false
	}
	_, codes := mails.Counts()
	pressAndLoad(t, ctx, `form[action="/settings/security/confirm/code"] button`)
	fill(t, ctx, `#confirm-code`, mails.Code(t, codes))
	pressAndLoad(t, ctx, `#confirm form:has(#confirm-code) button`)
	if has(t, ctx, `#confirm`) || !has(t, ctx, `[role=status]`) {
		t.Fatalf("%s: the mailed code did not confirm the session", location(ctx))
	}
	if has(t, ctx, `[data-testid=qr]`) {
		return true
	}
	if fillIn != nil {
		fillIn()
	}
	pressAndLoad(t, ctx, sel)
	if has(t, ctx, `#confirm`) {
		t.Fatalf("%s: still asked to confirm after confirming", location(ctx))
	}
	return true
}

// openDetails opens the <details> at sel, whether or not it is open.
func openDetails(t *testing.T, ctx context.Context, sel string) {
	t.Helper()
	if err := chromedp.Run(ctx, chromedp.SetAttributeValue(sel, "open", "", chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
}

// setPassword sets password on /settings/security, confirming the session
// when asked, and reports whether it was asked.
func setPassword(t *testing.T, ctx context.Context, mails *linkCatcher, password string) (asked bool) {
	t.Helper()
	return securityAction(t, ctx, mails, `form[data-testid=set-password] button`, func() {
		fill(t, ctx, `#new-password`, password)
		fill(t, ctx, `#new-password2`, password)
	})
}

// signInByLink asks for a link on / and opens the mailed link; shot names
// the screenshots of the page saying the link is on its way, if any.
func signInByLink(t *testing.T, ctx context.Context, base string, mails *linkCatcher, email, shot string) {
	t.Helper()
	links, _ := mails.Counts()
	if err := chromedp.Run(ctx, chromedp.Navigate(base+"/"), chromedp.WaitVisible(`form[data-testid=link]`)); err != nil {
		t.Fatal(err)
	}
	fill(t, ctx, `#email`, email)
	pressAndLoad(t, ctx, `form[data-testid=link] button`)
	if !has(t, ctx, `#mail-note`) {
		t.Fatalf("%s: no note that the link is on its way", location(ctx))
	}
	if shot != "" {
		screenshots(t, ctx, shot)
	}
	if err := chromedp.Run(ctx, chromedp.Navigate(mails.NextLink(t, links)), chromedp.WaitVisible(`form[data-testid=write]`)); err != nil {
		t.Fatal(err)
	}
}

// signOut presses the page's Sign out and expects the sign-in page.
func signOut(t *testing.T, ctx context.Context) {
	t.Helper()
	pressAndLoad(t, ctx, `form.signout button`)
	if !has(t, ctx, `form[data-testid=link]`) {
		t.Fatalf("%s: signed out, but no sign-in form", location(ctx))
	}
}

// apiStatus is the status of GET /api/tokens with the bearer token.
func apiStatus(t *testing.T, base, token string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, base+"/api/tokens", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// formAnswer is the browser's log line for a page that answered a form
// with the form again and its sentence: 422 for bad input, 423 when the
// session must be confirmed first. These are the statuses the API gives
// for the same cases, not errors of the page.
var formAnswer = regexp.MustCompile(`^log: Failed to load resource: the server responded with a status of 42[23] `)

// noConsoleErrors fails t for every console error the browser logged,
// apart from the form answers above.
func noConsoleErrors(t *testing.T, errs []string) {
	t.Helper()
	for _, e := range errs {
		if !formAnswer.MatchString(e) {
			t.Errorf("browser console: %s", e)
		}
	}
}

// A person signs in from / each way the page offers: by mailed link, by a
// mailed code typed in, and by the password set on the security page.
func TestBrowserSignIn(t *testing.T) {
	t.Parallel()
	needChromium(t)
	base, _, _, mails := browserApp(t, &modelGate{})
	ctx, consoleErrors := newBrowser(t)
	const email, password = "ways@example.com", "a long enough passphrase"

	if err := chromedp.Run(ctx, chromedp.Navigate(base+"/"), chromedp.WaitVisible(`form[data-testid=link]`)); err != nil {
		t.Fatal(err)
	}
	screenshots(t, ctx, "signin-choose")

	t.Run("Link", func(t *testing.T) {
		signInByLink(t, ctx, base, mails, email, "signin-link-sent")
	})

	// A password for the third way, set once the session is confirmed.
	if err := chromedp.Run(ctx, chromedp.Navigate(base+"/settings/security"), chromedp.WaitVisible(`#password`)); err != nil {
		t.Fatal(err)
	}
	if !setPassword(t, ctx, mails, password) {
		t.Error("setting a password did not ask to confirm the session first")
	}
	if !has(t, ctx, `#password [role=status]`) {
		t.Fatalf("%s: no notice that the password is saved", location(ctx))
	}
	signOut(t, ctx)

	t.Run("Code", func(t *testing.T) {
		_, codes := mails.Counts()
		press(t, ctx, `details:has(form[data-testid=ask-code]) summary`)
		fill(t, ctx, `#code-email`, email)
		pressAndLoad(t, ctx, `form[data-testid=ask-code] button`)
		if !has(t, ctx, `form[data-testid=code]`) {
			t.Fatalf("%s: no step to type the code in", location(ctx))
		}
		screenshots(t, ctx, "signin-code")
		// A wrong code is refused with a sentence, on the same step.
		fill(t, ctx, `#code`, "000000x")
		pressAndLoad(t, ctx, `form[data-testid=code] button`)
		if !has(t, ctx, `form[data-testid=code]`) || !has(t, ctx, `#form-error`) {
			t.Fatalf("%s: a wrong code did not stay on the code step with a sentence", location(ctx))
		}
		fill(t, ctx, `#code`, mails.Code(t, codes))
		pressAndLoad(t, ctx, `form[data-testid=code] button`)
		if !has(t, ctx, `form[data-testid=write]`) {
			t.Fatalf("%s: the mailed code did not sign in", location(ctx))
		}
		signOut(t, ctx)
	})

	t.Run("Password", func(t *testing.T) {
		press(t, ctx, `details:has(form[data-testid=password]) summary`)
		screenshots(t, ctx, "signin-password")
		fill(t, ctx, `#pw-email`, email)
		fill(t, ctx, `#password`, "not the password")
		pressAndLoad(t, ctx, `form[data-testid=password] button`)
		if has(t, ctx, `form[data-testid=write]`) || !has(t, ctx, `#form-error`) {
			t.Fatalf("%s: a wrong password signed in or said nothing", location(ctx))
		}
		fill(t, ctx, `#pw-email`, email)
		fill(t, ctx, `#password`, password)
		pressAndLoad(t, ctx, `form[data-testid=password] button`)
		if !has(t, ctx, `form[data-testid=write]`) {
			t.Fatalf("%s: the password did not sign in", location(ctx))
		}
	})

	if err := chromedp.Run(ctx, chromedp.Navigate(base+"/settings"), chromedp.WaitVisible(`form[data-testid=account]`)); err != nil {
		t.Fatal(err)
	}
	screenshots(t, ctx, "settings-account")
	noConsoleErrors(t, consoleErrors())
}

// Two-factor is set up from the security page with a code computed from the
// secret it shows; from then on a password sign-in asks for the code as its
// own step, and each recovery code signs in once.
func TestBrowserTwoFactor(t *testing.T) {
	t.Parallel()
	needChromium(t)
	base, _, _, mails := browserApp(t, &modelGate{})
	ctx, consoleErrors := newBrowser(t)
	const email, password = "two@example.com", "a long enough passphrase"

	signInByLink(t, ctx, base, mails, email, "")
	if err := chromedp.Run(ctx, chromedp.Navigate(base+"/settings/security"), chromedp.WaitVisible(`[data-testid=two-factor-off]`)); err != nil {
		t.Fatal(err)
	}
	setPassword(t, ctx, mails, password)
	if !has(t, ctx, `#password [role=status]`) {
		t.Fatalf("%s: no notice that the password is saved", location(ctx))
	}

	// Confirmed for the password a moment ago, the session needs no
	// second confirmation.
	if securityAction(t, ctx, mails, `form[action="/settings/security/two-factor"] button`, nil) {
		t.Error("two-factor asked to confirm a session confirmed a moment ago")
	}
	if !has(t, ctx, `[data-testid=qr] svg`) {
		t.Fatalf("%s: the setup shows no QR code", location(ctx))
	}
	screenshots(t, ctx, "security-two-factor-setup")
	var secret string
	if err := chromedp.Run(ctx, chromedp.Text(`[data-testid=secret]`, &secret, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	// A wrong code leaves it off.
	fill(t, ctx, `#tf-code`, "000000")
	pressAndLoad(t, ctx, `form[data-testid=confirm-two-factor] button`)
	if has(t, ctx, `[data-testid=recovery-codes]`) || !has(t, ctx, `#two-factor [role=alert]`) {
		t.Fatalf("%s: a wrong code turned two-factor on or said nothing", location(ctx))
	}
	code, err := totp.GenerateCode(secret, time.Now())
	if err != nil {
		t.Fatalf("the shown secret %q: %v", secret, err)
	}
	fill(t, ctx, `#tf-code`, code)
	pressAndLoad(t, ctx, `form[data-testid=confirm-two-factor] button`)
	var recovery []string
	if err := chromedp.Run(ctx, chromedp.Evaluate(`[...document.querySelectorAll("[data-testid=recovery-codes] code")].map(e => e.textContent)`, &recovery)); err != nil {
		t.Fatal(err)
	}
	if len(recovery) < 2 {
		t.Fatalf("%s: %d recovery codes shown, want several", location(ctx), len(recovery))
	}
	screenshots(t, ctx, "security-recovery-codes")
	if err := chromedp.Run(ctx, chromedp.Navigate(base+"/settings/security"), chromedp.WaitVisible(`[data-testid=two-factor-on]`)); err != nil {
		t.Fatal(err)
	}
	if has(t, ctx, `[data-testid=recovery-codes]`) {
		t.Error("the recovery codes are shown again after leaving the page")
	}
	screenshots(t, ctx, "security")
	signOut(t, ctx)

	passwordStep := func(t *testing.T) {
		t.Helper()
		if err := chromedp.Run(ctx, chromedp.Navigate(base+"/"), chromedp.WaitReady(`form[data-testid=password]`)); err != nil {
			t.Fatal(err)
		}
		fill(t, ctx, `#pw-email`, email)
		fill(t, ctx, `#password`, password)
		pressAndLoad(t, ctx, `form[data-testid=password] button`)
		if has(t, ctx, `form[data-testid=write]`) || !has(t, ctx, `form[data-testid=two-factor]`) {
			t.Fatalf("%s: the password alone signed in, or no second step", location(ctx))
		}
		// The journal stays shut until the second step is done.
		if err := chromedp.Run(ctx, chromedp.Navigate(base+"/settings"), chromedp.WaitReady(`main`)); err != nil {
			t.Fatal(err)
		}
		if has(t, ctx, `form[data-testid=account]`) {
			t.Fatal("the settings opened between the password and the second step")
		}
		if err := chromedp.Run(ctx, chromedp.Navigate(base+"/"), chromedp.WaitReady(`form[data-testid=two-factor]`)); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("Code", func(t *testing.T) {
		passwordStep(t)
		screenshots(t, ctx, "signin-two-factor")
		// A code works once: the one of the set-up may be the current one,
		// so the next (which the server takes, for a phone a little ahead).
		code, err := totp.GenerateCode(secret, time.Now().Add(30*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		fill(t, ctx, `#tf-code`, code)
		pressAndLoad(t, ctx, `form[data-testid=two-factor] button`)
		if !has(t, ctx, `form[data-testid=write]`) {
			t.Fatalf("%s: the authenticator's code did not sign in", location(ctx))
		}
		signOut(t, ctx)
	})

	t.Run("RecoveryCodeOnce", func(t *testing.T) {
		useRecovery := func() {
			passwordStep(t)
			press(t, ctx, `details:has(form[data-testid=recovery]) summary`)
			fill(t, ctx, `#recovery`, recovery[0])
			pressAndLoad(t, ctx, `form[data-testid=recovery] button`)
		}
		useRecovery()
		if !has(t, ctx, `form[data-testid=write]`) {
			t.Fatalf("%s: the recovery code did not sign in", location(ctx))
		}
		signOut(t, ctx)
		useRecovery()
		if has(t, ctx, `form[data-testid=write]`) || !has(t, ctx, `#form-error`) {
			var main string
			chromedp.Run(ctx, chromedp.Text(`main`, &main, chromedp.ByQuery))
			t.Fatalf("%s: a recovery code used before signed in again, or said nothing:\n%s", location(ctx), main)
		}
	})
	noConsoleErrors(t, consoleErrors())
}

// A token revoked from the security page answers 401 at once; "sign out
// everywhere else" ends another browser's session and keeps this one; the
// account deleted from the page takes its tokens along and ends at goodbye.
func TestBrowserCredentials(t *testing.T) {
	t.Parallel()
	needChromium(t)
	base, m, _, mails := browserApp(t, &modelGate{})
	ctx, consoleErrors := newBrowser(t)
	const email = "keys@example.com"

	signInByLink(t, ctx, base, mails, email, "")
	u, err := m.Store().FindUserByEmail(context.Background(), email)
	if err != nil {
		t.Fatal(err)
	}
	revoked := storetest.MustCreateToken(t, m.Store(), u.ID)
	kept := storetest.MustCreateToken(t, m.Store(), u.ID)
	for _, tok := range []string{revoked, kept} {
		if got := apiStatus(t, base, tok); got != http.StatusOK {
			t.Fatalf("a new token answers %d, want 200", got)
		}
	}

	t.Run("RevokeToken", func(t *testing.T) {
		if err := chromedp.Run(ctx, chromedp.Navigate(base+"/settings/security"), chromedp.WaitReady(`[data-testid=tokens]`)); err != nil {
			t.Fatal(err)
		}
		if got := count(t, ctx, `[data-token-id]`); got != 2 {
			t.Fatalf("%d tokens listed, want 2", got)
		}
		tok, _, err := m.Store().Authenticate(context.Background(), revoked)
		if err != nil {
			t.Fatal(err)
		}
		id := tok.ID
		if !has(t, ctx, fmt.Sprintf(`[data-token-id=%q]`, id)) {
			t.Fatalf("the token %s is not listed", id)
		}
		securityAction(t, ctx, mails, fmt.Sprintf(`[data-token-id=%q] button`, id), nil)
		if !has(t, ctx, `#tokens [role=status]`) {
			t.Fatalf("%s: no notice that the token is revoked", location(ctx))
		}
		if got := count(t, ctx, `[data-token-id]`); got != 1 {
			t.Errorf("%d tokens listed after revoking one of two, want 1", got)
		}
		if got := apiStatus(t, base, revoked); got != http.StatusUnauthorized {
			t.Errorf("the revoked token answers %d, want 401", got)
		}
		if got := apiStatus(t, base, kept); got != http.StatusOK {
			t.Errorf("the other token answers %d after one was revoked, want 200", got)
		}
	})

	t.Run("SignOutEverywhereElse", func(t *testing.T) {
		other, otherErrors := newBrowser(t)
		signInByLink(t, other, base, mails, email, "")
		if err := chromedp.Run(ctx, chromedp.Navigate(base+"/settings/security"), chromedp.WaitReady(`[data-testid=sessions]`)); err != nil {
			t.Fatal(err)
		}
		if got := count(t, ctx, `[data-session-id]`); got != 2 {
			t.Fatalf("%d browsers listed, want 2", got)
		}
		securityAction(t, ctx, mails, `form[action="/settings/security/sessions/delete"] button`, nil)
		if !has(t, ctx, `#sessions [role=status]`) {
			t.Fatalf("%s: no notice that the others are signed out", location(ctx))
		}
		if got := count(t, ctx, `[data-session-id]`); got != 1 {
			t.Errorf("%d browsers listed after signing out the others, want 1", got)
		}
		if err := chromedp.Run(other, chromedp.Navigate(base+"/"), chromedp.WaitReady(`main`)); err != nil {
			t.Fatal(err)
		}
		if has(t, other, `form[data-testid=write]`) || !has(t, other, `form[data-testid=link]`) {
			t.Error("the other browser is still signed in")
		}
		if err := chromedp.Run(ctx, chromedp.Navigate(base+"/"), chromedp.WaitReady(`main`)); err != nil {
			t.Fatal(err)
		}
		if !has(t, ctx, `form[data-testid=write]`) {
			t.Error("this browser was signed out too")
		}
		noConsoleErrors(t, otherErrors())
	})

	t.Run("DeleteAccount", func(t *testing.T) {
		if err := chromedp.Run(ctx, chromedp.Navigate(base+"/settings/security"), chromedp.WaitReady(`#delete`)); err != nil {
			t.Fatal(err)
		}
		if !securityAction(t, ctx, mails, `form[data-testid=delete-account] button`, func() { openDetails(t, ctx, `#delete details`) }) {
			t.Error("deleting the account did not ask to confirm the session first")
		}
		if !has(t, ctx, `[data-testid=goodbye]`) {
			t.Fatalf("%s: deleting the account did not end at the goodbye page", location(ctx))
		}
		screenshots(t, ctx, "goodbye")
		if got := apiStatus(t, base, kept); got != http.StatusUnauthorized {
			t.Errorf("the deleted account's token answers %d, want 401", got)
		}
		if _, err := m.Store().FindUserByEmail(context.Background(), email); err == nil {
			t.Error("the account is still in the store")
		}
		if err := chromedp.Run(ctx, chromedp.Navigate(base+"/"), chromedp.WaitReady(`main`)); err != nil {
			t.Fatal(err)
		}
		if !has(t, ctx, `form[data-testid=link]`) {
			t.Error("after deleting the account the browser is not signed out")
		}
	})
	noConsoleErrors(t, consoleErrors())
}
