package account

import (
	"context"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/recur-journal/recur/internal/i18n"
	"github.com/recur-journal/recur/store"
)

// ConfirmationLifetime is how long a confirmed session stays confirmed.
const ConfirmationLifetime = 15 * time.Minute

// MailCodeLifetime is how long a mailed code works.
const MailCodeLifetime = 10 * time.Minute

var errOnlySession = &Error{Status: http.StatusBadRequest, Message: i18n.Key("Only a session can be confirmed.")}

// Confirmed reports whether c acts on a browser session that was confirmed
// within ConfirmationLifetime. A token never is.
func (a *Accounts) Confirmed(ctx context.Context, c *Caller) bool {
	if c.Token != nil {
		return false
	}
	at := a.opts.Session.ConfirmedAt(ctx)
	return !at.IsZero() && a.opts.Store.Now().Sub(at) < ConfirmationLifetime
}

// ConfirmWithPassword confirms c's session by the account's password. A
// token gets 400; an account without a password 422. It counts towards the
// password lock as sign-in does: 429 while the account is locked.
func (a *Accounts) ConfirmWithPassword(ctx context.Context, c *Caller, password string) error {
	if c.Token != nil {
		return errOnlySession
	}
	if err := a.limiter.allow("confirm", c.User.ID); err != nil {
		return err
	}
	if c.User.PasswordHash == "" {
		return invalid("password", "This account has no password; confirm with a mailed code instead (POST /user/confirmation-codes).")
	}
	until, err := a.lockedUntil(ctx, c.User, store.FactorPassword)
	if err != nil {
		return err
	}
	if !until.IsZero() {
		return errLocked(store.FactorPassword, until, a.opts.Store.Now())
	}
	ok, err := a.passwords.check(ctx, a.opts.Store, a.log(ctx), c.User, password)
	if err != nil {
		return err
	}
	if !ok {
		if err := a.failed(ctx, c.User, store.FactorPassword); err != nil {
			return err
		}
		return invalid("password", "The password is incorrect.")
	}
	if err := a.passed(ctx, c.User, store.FactorPassword); err != nil {
		return err
	}
	a.opts.Session.Confirm(ctx, a.opts.Store.Now())
	return nil
}

// MailConfirmationCode mails a code to c's own address that confirms the
// session (ConfirmWithCode), for accounts without a password.
func (a *Accounts) MailConfirmationCode(ctx context.Context, c *Caller) error {
	if c.Token != nil {
		return errOnlySession
	}
	if err := a.limiter.allow("confirmation-code", c.User.ID); err != nil {
		return err
	}
	code := digits(6)
	if err := a.opts.Store.CreateMailCode(ctx, c.User.ID, store.CodeConfirm, a.keys.mac(store.CodeConfirm, c.User.ID, code), MailCodeLifetime); err != nil {
		return err
	}
	loc := a.locale(ctx, c.User.ID)
	a.send(codeMail(loc, c.User.Email, loc.T("Your Recur confirmation code"), loc.T("Your code to confirm this session is:"), code))
	return nil
}

// ConfirmWithCode confirms c's session by a code MailConfirmationCode sent.
func (a *Accounts) ConfirmWithCode(ctx context.Context, c *Caller, code string) error {
	if c.Token != nil {
		return errOnlySession
	}
	if err := a.limiter.allow("confirm", c.User.ID); err != nil {
		return err
	}
	code = strings.TrimSpace(code)
	if err := a.opts.Store.CheckMailCode(ctx, c.User.ID, store.CodeConfirm, a.keys.mac(store.CodeConfirm, c.User.ID, code), true); err != nil {
		return err
	}
	a.opts.Session.Confirm(ctx, a.opts.Store.Now())
	return nil
}

// SetPassword sets or changes the password of c's user, keeps this session
// and signs out every other one and every token not held by an app
// (store.ChangePassword). It needs the session confirmed (423), and
// answers 422 under password for one longer than 1024 characters (the
// store refuses one shorter than store.PasswordMinLength).
func (a *Accounts) SetPassword(ctx context.Context, c *Caller, password string) error {
	if !a.Confirmed(ctx, c) {
		return errConfirmationRequired
	}
	if utf8.RuneCountInString(password) > 1024 {
		return invalid("password", "The password may not be longer than 1024 characters.")
	}
	var hash string
	var err error
	// Hashing is as costly as checking: it takes one of the same slots.
	if werr := a.passwords.run(ctx, func() { hash, err = store.HashPassword(password) }); werr != nil {
		return werr
	}
	if err != nil {
		return err
	}
	sessions, tokens, err := a.opts.Store.ChangePassword(ctx, c.User.ID, hash, a.opts.Session.Token(ctx))
	if err != nil {
		return err
	}
	a.log(ctx).Info("password changed", "user_id", c.User.ID, "sessions_ended", sessions, "tokens_revoked", tokens)
	return nil
}
