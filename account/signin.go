package account

import (
	"context"
	"errors"
	"net/http"

	"github.com/recur-journal/recur/store"
)

var errBadCredentials = invalid("email", "These credentials do not match our records.")

// SignInWithPassword signs the browser session of ctx in by address and
// password. With two-factor on, the session waits for SignInSecondFactor
// and twoFactor is true. A wrong password, an unknown address and a locked
// account all get the same 422 under email, after the same work; limits
// per address and IP, and per IP, answer 429.
func (a *Accounts) SignInWithPassword(ctx context.Context, email, password string, remember bool) (twoFactor bool, err error) {
	email = store.NormaliseEmail(email)
	ip := a.opts.ClientIP(ctx)
	if err := a.limiter.allow("login-ip", ip); err != nil {
		return false, err
	}
	if err := a.limiter.allow("login", email+"|"+ip); err != nil {
		return false, err
	}
	user, err := a.opts.Store.FindUserByEmail(ctx, email)
	if store.ErrorCode(err) == store.ENOTFOUND {
		user = nil // checked against a stand-in hash, so timing tells nothing
	} else if err != nil {
		return false, err
	}
	until, err := a.lockedUntil(ctx, user, store.FactorPassword)
	if err != nil {
		return false, err
	}
	ok, err := a.passwords.check(ctx, a.opts.Store, a.log(ctx), user, password)
	if err != nil {
		return false, err
	}
	// A locked account answers as a wrong password does, after the same
	// work, so that a lock tells nobody the address has an account.
	if !ok || !until.IsZero() {
		if err := a.failed(ctx, user, store.FactorPassword); err != nil {
			return false, err
		}
		return false, errBadCredentials
	}
	if err := a.passed(ctx, user, store.FactorPassword); err != nil {
		return false, err
	}
	return a.afterFirstFactor(ctx, user, remember)
}

// afterFirstFactor signs the user in, or, with two-factor on, leaves the
// session waiting for the second factor.
func (a *Accounts) afterFirstFactor(ctx context.Context, user *store.User, remember bool) (twoFactor bool, err error) {
	if user.TwoFactor() {
		return true, a.opts.Session.AwaitSecondFactor(ctx, user.ID, remember)
	}
	return false, a.opts.Session.SignIn(ctx, user.ID, remember)
}

// WaitsForSecondFactor reports whether the session of ctx signed in but
// for the second factor.
func (a *Accounts) WaitsForSecondFactor(ctx context.Context) bool {
	pending, _ := a.opts.Session.Pending(ctx)
	return pending != ""
}

// SignInSecondFactor finishes the sign-in of the session of ctx with the
// authenticator's code, or else a recovery code. Without a sign-in waiting
// it is 422 under code; wrong codes count towards the account's lock (429).
func (a *Accounts) SignInSecondFactor(ctx context.Context, code, recoveryCode string) error {
	pending, remember := a.opts.Session.Pending(ctx)
	if err := a.limiter.allow("two-factor", pending+"|"+a.opts.ClientIP(ctx)); err != nil {
		return err
	}
	if pending == "" {
		return invalid("code", "No sign-in is waiting for a second factor; sign in first.")
	}
	user, err := a.opts.Store.FindUserByID(ctx, pending)
	if err != nil {
		return err
	}
	if err := a.checkSecondFactor(ctx, user, code, recoveryCode); err != nil {
		return err
	}
	return a.opts.Session.SignIn(ctx, user.ID, remember)
}

// checkSecondFactor checks an authenticator code or uses up a recovery code,
// within the account's lock: wrong ones count against it, whatever the
// address they come from.
func (a *Accounts) checkSecondFactor(ctx context.Context, user *store.User, code, recovery string) error {
	if recovery == "" && code == "" {
		return invalid("code", "The code field is required: the authenticator's code, or a recovery_code.")
	}
	until, err := a.lockedUntil(ctx, user, store.FactorTwoFactor)
	if err != nil {
		return err
	}
	if !until.IsZero() {
		return errLocked(store.FactorTwoFactor, until, a.opts.Store.Now())
	}
	if recovery != "" {
		err = a.opts.Store.UseRecoveryCode(ctx, user.ID, a.keys.mac("recovery", normaliseRecovery(recovery)))
	} else {
		err = a.checkTOTP(ctx, user, code)
	}
	if err == nil {
		return a.passed(ctx, user, store.FactorTwoFactor)
	}
	var ae *Error
	if store.ErrorCode(err) == store.EINVALID || (errors.As(err, &ae) && ae.Status == http.StatusUnprocessableEntity) {
		if ferr := a.failed(ctx, user, store.FactorTwoFactor); ferr != nil {
			return ferr
		}
	}
	return err
}

// SignOut ends the browser session of ctx.
func (a *Accounts) SignOut(ctx context.Context) error { return a.opts.Session.Destroy(ctx) }
