package account

import (
	"context"
	"net/http"
	"net/mail"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/recur-journal/recur/internal/i18n"
	"github.com/recur-journal/recur/store"
)

// MagicLinkLifetime is how long a mailed or made sign-in link works. A link
// is not used up by opening it: mail scanners open links before people do,
// and a one-use link would be spent by the scanner. It works, any number of
// times, until it expires.
const MagicLinkLifetime = 15 * time.Minute

// validEmail normalises an address (store.NormaliseEmail) and checks it
// the way the mail routes need.
func validEmail(email string) (string, error) {
	email = store.NormaliseEmail(email)
	a, err := mail.ParseAddress(email)
	if err != nil || a.Address != email {
		return "", invalid("email", "The email must be a valid email address, like name@example.com.")
	}
	return email, nil
}

// errEmailTooLong is the answer to an address over 255 characters, which
// the API's schema refuses before the rules are asked.
var errEmailTooLong = invalid("email", "The email may not be longer than 255 characters.")

// MailSignInLink asks for a sign-in link to be mailed to email, for a
// browser on this app: the address is normalised, the limits apply, and
// known and unknown addresses do the same work (the sign-in workers look
// the address up). Its errors are a malformed address (422) or too many
// tries (429).
func (a *Accounts) MailSignInLink(ctx context.Context, email string) error {
	if utf8.RuneCountInString(email) > 255 {
		return errEmailTooLong
	}
	return a.AskSignInMail(ctx, email, true)
}

// MailSignInCode is MailSignInLink for a six-digit code (SignInWithCode).
func (a *Accounts) MailSignInCode(ctx context.Context, email string) error {
	if utf8.RuneCountInString(email) > 255 {
		return errEmailTooLong
	}
	return a.AskSignInMail(ctx, email, false)
}

// AskSignInMail checks the address and its limits and queues the mail: a
// link when web is set (a browser on this app), a code otherwise. It does
// the same work for every well-formed address; the rest is the workers'.
func (a *Accounts) AskSignInMail(ctx context.Context, address string, web bool) error {
	email, err := validEmail(address)
	if err != nil {
		return err
	}
	if err := a.limiter.allow("magic-mail-ip", a.opts.ClientIP(ctx)); err != nil {
		return err
	}
	if err := a.limiter.allow("magic-mail-address", email); err != nil {
		return err
	}
	return a.askSignIn(ctx, signInRequest{email: email, web: web})
}

// errCodeRejected is the single answer to every failed code exchange.
func errCodeRejected() *Error { return invalid("code", store.ErrCodeRejected.Message) }

// SignInWithCode checks a mailed sign-in code and signs the browser session
// of ctx in; it verifies the address. With two-factor on, the session waits
// for SignInSecondFactor and twoFactor is true. Every failure of the code
// is the same 422 under code.
func (a *Accounts) SignInWithCode(ctx context.Context, email, code string) (twoFactor bool, err error) {
	user, err := a.checkSignInCode(ctx, email, code, true)
	if err != nil {
		return false, err
	}
	if err := a.opts.Store.MarkEmailVerified(ctx, user.ID); err != nil {
		return false, err
	}
	return a.afterFirstFactor(ctx, user, false)
}

// ExchangeCode is SignInWithCode for a program: it answers a new token with
// every scope, named deviceName ("Signed in by mail" when empty), in place
// of a session. With two-factor on, the authenticator's code or a recovery
// code must come along (422 under two_factor_code otherwise).
func (a *Accounts) ExchangeCode(ctx context.Context, email, code, deviceName, twoFactorCode, recoveryCode string) (*store.Token, string, error) {
	user, err := a.checkSignInCode(ctx, email, code, false)
	if err != nil {
		return nil, "", err
	}
	hash := a.keys.mac(store.CodeSignIn, user.ID, strings.TrimSpace(code))
	if user.TwoFactor() {
		if twoFactorCode == "" && recoveryCode == "" {
			return nil, "", invalid("two_factor_code", "Two-factor authentication is on: send two_factor_code or recovery_code with the code.")
		}
		if err := a.checkSecondFactor(ctx, user, twoFactorCode, recoveryCode); err != nil {
			return nil, "", err
		}
		if err := a.opts.Store.CheckMailCode(ctx, user.ID, store.CodeSignIn, hash, true); err != nil {
			return nil, "", errCodeRejected()
		}
	}
	if err := a.opts.Store.MarkEmailVerified(ctx, user.ID); err != nil {
		return nil, "", err
	}
	name := strings.TrimSpace(deviceName)
	if name == "" {
		name = "Signed in by mail"
	}
	t := store.Token{UserID: user.ID, Name: name, Scopes: []string{string(ScopeAll)}}
	if a.opts.TokenLifetime > 0 {
		at := a.opts.Store.Now().Add(a.opts.TokenLifetime)
		t.ExpiresAt = &at
	}
	plain, err := a.opts.Store.CreateToken(ctx, &t)
	if err != nil {
		return nil, "", err
	}
	return &t, plain, nil
}

// checkSignInCode finds the user a mailed sign-in code is for, within the
// limits of the code exchange. The code is used up, except that with
// two-factor on it is kept unless consume is set. Every failure of the code
// is the same 422 under code.
func (a *Accounts) checkSignInCode(ctx context.Context, address, code string, consume bool) (*store.User, error) {
	if err := a.limiter.allow("magic-token-ip", a.opts.ClientIP(ctx)); err != nil {
		return nil, err
	}
	email := store.NormaliseEmail(address)
	if err := a.limiter.allow("magic-token-address", email); err != nil {
		return nil, err
	}
	code = strings.TrimSpace(code)
	user, err := a.opts.Store.FindUserByEmail(ctx, email)
	if store.ErrorCode(err) == store.ENOTFOUND {
		// The same work as for a known address: a code is looked for (under
		// no user, so none is found, and the answer is the one 422) in the
		// same write transaction.
		user = &store.User{}
	} else if err != nil {
		return nil, err
	}
	hash := a.keys.mac(store.CodeSignIn, user.ID, code)
	// With two-factor on, the code is checked but kept until the second
	// factor is right too, unless the caller keeps that state itself.
	if err := a.opts.Store.CheckMailCode(ctx, user.ID, store.CodeSignIn, hash, consume || !user.TwoFactor()); err != nil {
		if store.ErrorCode(err) == store.EINVALID {
			return nil, errCodeRejected()
		}
		return nil, err
	}
	return user, nil
}

// checkPath applies the rules of a link's path: required, at most 255
// characters, and a path on this app alone, both as written and as a URL
// parser reads it: a browser drops tabs and newlines and reads a backslash
// as a slash, so "/\t/evil.example" would name another host. So no control
// character or backslash (written or percent-encoded), no scheme, no host,
// and one leading slash, not two.
func checkPath(path string) error {
	switch {
	case path == "":
		return invalid("path", "The path field is required.")
	case utf8.RuneCountInString(path) > 255:
		return invalid("path", "The path may not be longer than 255 characters.")
	}
	bad := invalid("path", "The path must be a path on this app, like /timeline: one leading slash, and no scheme, host, backslash or control character.")
	u, err := url.Parse(path)
	if err != nil || !onlyPath(path) || !onlyPath(u.Path) || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" {
		return bad
	}
	return nil
}

// onlyPath reports whether p starts with a single slash and holds no
// backslash or control character.
func onlyPath(p string) bool {
	if !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") {
		return false
	}
	return !strings.ContainsFunc(p, func(r rune) bool { return r == '\\' || unicode.IsControl(r) })
}

// checkReturnTo accepts only URLs on this app's own origin: base_url's,
// or site, the one the request was sent to.
func (a *Accounts) checkReturnTo(site, returnTo string) error {
	if returnTo == "" {
		return nil
	}
	u, err := url.Parse(returnTo)
	if err != nil || u.User != nil || (u.Scheme+"://"+u.Host != a.origin && u.Scheme+"://"+u.Host != site) {
		origin := a.origin
		if origin == "" {
			origin = site
		}
		return invalid("return_to", "The return_to must be a URL on this app's own origin, "+origin+".")
	}
	return nil
}

// signLink signs a login URL for the user; login is the absolute URL of
// the sign-in route it starts from.
func (a *Accounts) signLink(login, userID, path, returnTo string) (link string, expires time.Time) {
	expires = a.opts.Store.Now().Add(MagicLinkLifetime).Truncate(time.Second)
	exp := strconv.FormatInt(expires.Unix(), 10)
	q := url.Values{}
	q.Set("user_uuid", userID)
	q.Set("path", path)
	if returnTo != "" {
		q.Set("return_to", returnTo)
	}
	q.Set("expires", exp)
	q.Set("signature", a.keys.mac("magic-link", userID, path, returnTo, exp))
	return login + "?" + q.Encode(), expires
}

// MakeSignInLink signs a link that signs a browser in as c and lands on
// path ("/" when empty), for handing a signed-in app over to a browser.
// login is the absolute URL of the sign-in route and site the origin the
// request was sent to. The link opens a session, which carries every
// scope: a token without "*", or an app's, gets 403.
func (a *Accounts) MakeSignInLink(c *Caller, login, site, path, returnTo string) (link string, expires time.Time, err error) {
	if err := mayOpenSession(c); err != nil {
		return "", time.Time{}, err
	}
	if path == "" {
		path = "/"
	}
	if err := checkPath(path); err != nil {
		return "", time.Time{}, err
	}
	if err := a.checkReturnTo(site, returnTo); err != nil {
		return "", time.Time{}, err
	}
	link, expires = a.signLink(login, c.User.ID, path, returnTo)
	return link, expires, nil
}

// SignInByLink signs the browser session of ctx in by a signed link, made
// by MakeSignInLink or mailed: 403 for a signature not made here or
// expired, then 422 for its path or return_to. It verifies the address.
func (a *Accounts) SignInByLink(ctx context.Context, site, userID, path, returnTo string, expires int64, signature string) (twoFactor bool, err error) {
	// Authorization first: nothing about the path is looked at before the
	// link proves it was made here.
	if !equal(signature, a.keys.mac("magic-link", userID, path, returnTo, strconv.FormatInt(expires, 10))) {
		return false, errBadSignature
	}
	if !a.opts.Store.Now().Before(time.Unix(expires, 0)) {
		return false, errLinkExpired
	}
	if err := checkPath(path); err != nil {
		return false, err
	}
	if err := a.checkReturnTo(site, returnTo); err != nil {
		return false, err
	}
	user, err := a.opts.Store.FindUserByID(ctx, userID)
	if store.ErrorCode(err) == store.ENOTFOUND {
		return false, errBadSignature
	} else if err != nil {
		return false, err
	}
	if err := a.opts.Store.MarkEmailVerified(ctx, user.ID); err != nil {
		return false, err
	}
	return a.afterFirstFactor(ctx, user, false)
}

var (
	errBadSignature = &Error{Status: http.StatusForbidden, Message: i18n.Key("Invalid signature.")}
	errLinkExpired  = &Error{Status: http.StatusForbidden, Message: "This link has expired. Ask for a new one."}
)
