package account

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// VerificationLinkLifetime is how long a mailed verification link works.
const VerificationLinkLifetime = time.Hour

// SendVerificationMail mails c's user a link that verifies the address;
// sent is false, and nothing is mailed, when it is verified already.
// Without base_url no link can be mailed: 503.
func (a *Accounts) SendVerificationMail(ctx context.Context, c *Caller) (sent bool, err error) {
	user := c.User
	if user.EmailVerifiedAt != nil {
		return false, nil
	}
	if err := a.limiter.allow("verification-mail", user.ID); err != nil {
		return false, err
	}
	verify, ok := a.mailedLink("/email/verify")
	if !ok {
		a.log(ctx).Error("verification mail not sent: [server] base_url is not set. " + baseURLFix)
		return false, &Error{Status: http.StatusServiceUnavailable, Message: "This server cannot mail links until its owner sets its address ([server] base_url). Signing in by a mailed code verifies the address too."}
	}
	exp := strconv.FormatInt(a.opts.Store.Now().Add(VerificationLinkLifetime).Unix(), 10)
	q := url.Values{"user_uuid": {user.ID}, "expires": {exp}, "signature": {a.keys.mac("verify-email", user.ID, user.Email, exp)}}
	loc := a.locale(ctx, user.ID)
	a.send(linkMail(user.Email, loc.T("Verify your address for Recur"), loc.T("Open this link to verify your address"), verify+"?"+q.Encode(),
		loc.T("It works for an hour. If you did not ask for it, ignore this mail.")))
	return true, nil
}

// VerifyEmail marks the address of userID verified by the parts of its
// mailed link: 403 for a link not made here, or expired.
func (a *Accounts) VerifyEmail(ctx context.Context, userID string, expires int64, signature string) error {
	user, err := a.opts.Store.FindUserByID(ctx, userID)
	if err != nil {
		return errBadSignature
	}
	if !equal(signature, a.keys.mac("verify-email", user.ID, user.Email, strconv.FormatInt(expires, 10))) {
		return errBadSignature
	}
	if !a.opts.Store.Now().Before(time.Unix(expires, 0)) {
		return errLinkExpired
	}
	return a.opts.Store.MarkEmailVerified(ctx, user.ID)
}
