package account

import (
	"context"
	"crypto/subtle"
	"fmt"
	"html"
	"math"
	"strings"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"github.com/recur-journal/recur/internal/i18n"
	"github.com/recur-journal/recur/mail"
	"github.com/recur-journal/recur/store"
)

// lockouts bound guessing per account, whatever the address it comes from,
// beside the per-IP limits. A lock is short and tries during it are not
// counted, so nobody can keep an owner out for long: ten wrong passwords
// cost a quarter of an hour of password sign-in, while sign-in by mailed
// link or code goes on working. The second factor is asked only of someone
// who got past the first, so it is held tighter. The README lists them.
var lockouts = map[string]store.Lockout{
	store.FactorPassword:  {Failures: 10, Window: 15 * time.Minute, Lock: 15 * time.Minute, MailEvery: 24 * time.Hour},
	store.FactorTwoFactor: {Failures: 5, Window: 15 * time.Minute, Lock: 15 * time.Minute, MailEvery: 24 * time.Hour},
}

// lockedUntil returns when the lock of the user's factor ends, or the zero
// time. A nil user (an unknown address) runs the same query and is not locked.
func (a *Accounts) lockedUntil(ctx context.Context, user *store.User, factor string) (time.Time, error) {
	return a.opts.Store.SignInLockedUntil(ctx, idOf(user), factor)
}

// failed counts a wrong try of the user's factor (for a nil user, the same
// work and nothing counted) and, when it locks the factor, logs it for the
// owner and mails the account, at most once a day.
func (a *Accounts) failed(ctx context.Context, user *store.User, factor string) error {
	note, err := a.opts.Store.NoteSignInFailure(ctx, idOf(user), factor, lockouts[factor])
	if err != nil || !note.Locked {
		return err
	}
	a.log(ctx).Warn("sign-in locked after too many wrong tries", "user_id", user.ID, "factor", factor,
		"until", note.Until.Format(time.RFC3339), "mailed", note.Mail)
	if note.Mail {
		a.send(lockMail(a.locale(ctx, user.ID), user.Email, factor, note.Until))
	}
	return nil
}

// passed forgets the wrong tries of a factor given right.
func (a *Accounts) passed(ctx context.Context, user *store.User, factor string) error {
	return a.opts.Store.ClearSignInFailures(ctx, user.ID, factor)
}

func idOf(u *store.User) string {
	if u == nil {
		return ""
	}
	return u.ID
}

// errLocked answers a try of a locked factor by someone who may know the
// account exists (signed in, or past the first factor).
func errLocked(factor string, until, now time.Time) *Error {
	secs := max(int(math.Ceil(until.Sub(now).Seconds())), 1)
	msg := i18n.Key("Too many wrong passwords for this account: try again after %s UTC.")
	if factor == store.FactorTwoFactor {
		msg = i18n.Key("Too many wrong two-factor codes for this account: try again after %s UTC.")
	}
	return tooMany(fmt.Sprintf(msg, until.UTC().Format("15:04")), secs)
}

// lockMail tells an account that one of its ways of signing in is locked.
func lockMail(loc *i18n.Locale, to, factor string, until time.Time) mail.Message {
	at := loc.Date(until.UTC(), i18n.DateTime) + " UTC"
	what := loc.T("Someone gave too many wrong passwords for your Recur account, so that way of signing in is paused until %s.", at)
	then := loc.T("Until then the right password is refused too; signing in by a mailed link or code still works.")
	if factor == store.FactorTwoFactor {
		what = loc.T("Someone gave too many wrong two-factor codes for your Recur account, so that way of signing in is paused until %s.", at)
		then = loc.T("These came after a right password or sign-in link: if they were not yours, change your password now.")
	}
	text := what + "\n\n" + then + "\n\n" + loc.T("If it was you, wait until then. The owner of this Recur server can lift the pause at once with: %s", "recur user unlock "+to) + "\n\nRecur"
	return mail.Message{To: to, Subject: loc.T("Recur paused sign-in to your account"), Text: text,
		HTML: "<p>" + strings.ReplaceAll(html.EscapeString(text), "\n\n", "</p><p>") + "</p>"}
}

// totpStep returns the time step of an authenticator code: the step now or
// the one either side, for a phone's clock a little off.
func totpStep(secret, code string, now time.Time) (int64, bool) {
	code = strings.TrimSpace(code)
	step := now.Unix() / 30
	for _, st := range []int64{step - 1, step, step + 1} {
		want, err := totp.GenerateCodeCustom(secret, time.Unix(st*30, 0),
			totp.ValidateOpts{Period: 30, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
		if err == nil && subtle.ConstantTimeCompare([]byte(want), []byte(code)) == 1 {
			return st, true
		}
	}
	return 0, false
}

// checkTOTP checks an authenticator code and uses it up: a code works once.
func (a *Accounts) checkTOTP(ctx context.Context, user *store.User, code string) error {
	secret, err := a.keys.open(user.TwoFactorSecret)
	if err != nil {
		return err
	}
	step, ok := totpStep(secret, code, a.opts.Store.Now())
	if !ok {
		return invalid("code", "The two-factor code is invalid.")
	}
	return a.opts.Store.UseTOTPStep(ctx, user.ID, step)
}
