package server

import (
	"context"
	"net/http"
	"unicode/utf8"

	"github.com/recur-journal/recur/store"
)

// Mount has every request outside /api served by pages (the web app), inside
// the same session, security-header, body-limit and cross-origin checks as
// the API. Call it once, before serving; without it those paths are 404.
func (s *Server) Mount(pages http.Handler) { s.pages = pages }

// SessionUser returns the id of the user signed in on the request's browser
// session, or "" when nobody is. Bearer tokens are not looked at: pages are
// for browsers, which sign in by session.
func (s *Server) SessionUser(r *http.Request) string {
	return s.sessions.GetString(r.Context(), sessionUser)
}

// MailSignInLink asks for a sign-in link to be mailed to email, as POST
// /api/magic-links/mails does for a browser on this app: the address is
// normalised, the same limits apply, and known and unknown addresses do the
// same work. It returns an error whose message is a sentence for the person:
// a malformed address, or too many tries.
func (s *Server) MailSignInLink(ctx context.Context, email string) error {
	if utf8.RuneCountInString(email) > 255 {
		return invalid("email", "The email may not be longer than 255 characters.")
	}
	// The form is on this app's own page (a cross-origin post never gets
	// here), so the mail carries a link. The browser's Origin is "null"
	// under Referrer-Policy: no-referrer, so it cannot tell.
	return s.queueSignIn(ctx, email, true)
}

// SignOut ends the request's browser session.
func (s *Server) SignOut(ctx context.Context) error { return s.sessions.Destroy(ctx) }

// servePages answers every path the API and its documentation do not own.
func (s *Server) servePages(w http.ResponseWriter, r *http.Request) {
	if s.pages == nil {
		http.NotFound(w, r)
		return
	}
	s.pages.ServeHTTP(w, r)
}

// The methods below are the account pages' way in: each runs the API's own
// handler for the browser session of ctx, so a form follows exactly the
// rules (limits, confirmation, the 423) of the route it stands for. Their
// errors carry a sentence for the person and a status (GetStatus): 422 with
// a field, 423 until the session is confirmed, 429, or 404.

// errNoSession is what a page method answers when ctx has no signed-in browser.
var errNoSession = &apiError{status: http.StatusUnauthorized, Message: "Sign in first."}

// asSession returns ctx carrying the browser session's user, as the API's
// authentication does for a request.
func (s *Server) asSession(ctx context.Context) (context.Context, error) {
	p, err := s.resolve(ctx, "")
	if err != nil {
		return nil, errNoSession
	}
	return context.WithValue(ctx, principalKey{}, p), nil
}

// MailSignInCode mails a six-digit sign-in code to email, as POST
// /api/magic-links/mails does for a caller that is not a browser.
func (s *Server) MailSignInCode(ctx context.Context, email string) error {
	if utf8.RuneCountInString(email) > 255 {
		return invalid("email", "The email may not be longer than 255 characters.")
	}
	return s.queueSignIn(ctx, email, false)
}

// SignInWithCode checks a mailed sign-in code and signs the browser session
// in, as POST /api/magic-links/tokens does for a token. With two-factor on,
// the session waits for SignInSecondFactor and twoFactor is true. Every
// failure is the same 422 under code.
func (s *Server) SignInWithCode(ctx context.Context, email, code string) (twoFactor bool, err error) {
	user, err := s.checkSignInCode(ctx, email, code, true)
	if err != nil {
		return false, err
	}
	if err := s.opts.Store.MarkEmailVerified(ctx, user.ID); err != nil {
		return false, err
	}
	out, err := s.afterFirstFactor(ctx, user, false)
	if err != nil {
		return false, err
	}
	return out.Body.TwoFactor, nil
}

// SignInWithPassword is POST /api/login: with two-factor on, the session
// waits for SignInSecondFactor and twoFactor is true.
func (s *Server) SignInWithPassword(ctx context.Context, email, password string, remember bool) (twoFactor bool, err error) {
	in := &loginInput{}
	in.Body.Email, in.Body.Password, in.Body.Remember = email, password, remember
	out, err := s.login(ctx, in)
	if err != nil {
		return false, err
	}
	return out.Body.TwoFactor, nil
}

// WaitsForSecondFactor reports whether the request's session signed in but
// for the second factor.
func (s *Server) WaitsForSecondFactor(r *http.Request) bool {
	return s.sessions.GetString(r.Context(), sessionPendingUser) != ""
}

// SignInSecondFactor is POST /api/two-factor-challenge: the authenticator's
// code, or else a recovery code.
func (s *Server) SignInSecondFactor(ctx context.Context, code, recoveryCode string) error {
	in := &challengeInput{}
	in.Body.Code, in.Body.RecoveryCode = code, recoveryCode
	_, err := s.twoFactorChallenge(ctx, in)
	return err
}

// Confirmed reports whether the browser session was confirmed within
// ConfirmationLifetime.
func (s *Server) Confirmed(ctx context.Context) bool {
	ctx, err := s.asSession(ctx)
	return err == nil && s.confirmed(ctx)
}

// ConfirmWithPassword is POST /api/user/confirm-password.
func (s *Server) ConfirmWithPassword(ctx context.Context, password string) error {
	return s.onSession(ctx, func(ctx context.Context) error {
		in := &passwordInput{}
		in.Body.Password = password
		_, err := s.confirmPassword(ctx, in)
		return err
	})
}

// MailConfirmationCode is POST /api/user/confirmation-codes.
func (s *Server) MailConfirmationCode(ctx context.Context) error {
	return s.onSession(ctx, func(ctx context.Context) error {
		_, err := s.sendConfirmationCode(ctx, nil)
		return err
	})
}

// ConfirmWithCode is POST /api/user/confirmations.
func (s *Server) ConfirmWithCode(ctx context.Context, code string) error {
	return s.onSession(ctx, func(ctx context.Context) error {
		in := &codeInput{}
		in.Body.Code = code
		_, err := s.confirmSession(ctx, in)
		return err
	})
}

// SetPassword sets or changes the password of the session's user, keeps
// this session and signs out every other one and every token not held by
// an app (store.ChangePassword). It needs the session confirmed (423), and
// answers 422 under password for one shorter than store.PasswordMinLength
// or longer than 1024 characters.
func (s *Server) SetPassword(ctx context.Context, password string) error {
	return s.onSession(ctx, func(ctx context.Context) error {
		if !s.confirmed(ctx) {
			return errConfirmationRequired
		}
		if utf8.RuneCountInString(password) > 1024 {
			return invalid("password", "The password may not be longer than 1024 characters.")
		}
		var hash string
		var err error
		// Hashing is as costly as checking: it takes one of the same slots.
		if werr := s.passwords.run(ctx, func() { hash, err = store.HashPassword(password) }); werr != nil {
			return werr
		}
		if err != nil {
			return err
		}
		user := current(ctx).User
		sessions, tokens, err := s.opts.Store.ChangePassword(ctx, user.ID, hash, s.sessions.Token(ctx))
		if err != nil {
			return err
		}
		logger(ctx).Info("password changed", "user_id", user.ID, "sessions_ended", sessions, "tokens_revoked", tokens)
		return nil
	})
}

// StartTwoFactor is POST /api/user/two-factor-authentication: a new secret
// and its QR code; two-factor is on once ConfirmTwoFactor has a code.
func (s *Server) StartTwoFactor(ctx context.Context) (setup TwoFactorSetup, err error) {
	err = s.onSession(ctx, func(ctx context.Context) error {
		out, err := s.enableTwoFactor(ctx, nil)
		if err == nil {
			setup = out.Body.Data
		}
		return err
	})
	return setup, err
}

// ConfirmTwoFactor is POST /api/user/confirmed-two-factor-authentication:
// it answers the recovery codes, shown this once.
func (s *Server) ConfirmTwoFactor(ctx context.Context, code string) (codes []string, err error) {
	err = s.onSession(ctx, func(ctx context.Context) error {
		in := &twoFactorCodeInput{}
		in.Body.Code = code
		out, err := s.confirmTwoFactor(ctx, in)
		if err == nil {
			codes = out.Body.Data.RecoveryCodes
		}
		return err
	})
	return codes, err
}

// NewRecoveryCodes is POST /api/user/two-factor-recovery-codes.
func (s *Server) NewRecoveryCodes(ctx context.Context) (codes []string, err error) {
	err = s.onSession(ctx, func(ctx context.Context) error {
		out, err := s.regenerateRecoveryCodes(ctx, nil)
		if err == nil {
			codes = out.Body.Data.RecoveryCodes
		}
		return err
	})
	return codes, err
}

// DisableTwoFactor is DELETE /api/user/two-factor-authentication.
func (s *Server) DisableTwoFactor(ctx context.Context) error {
	return s.onSession(ctx, func(ctx context.Context) error {
		_, err := s.disableTwoFactor(ctx, nil)
		return err
	})
}

// SendVerificationMail is POST /api/email/verification-notification; an
// address verified already gets no mail.
func (s *Server) SendVerificationMail(ctx context.Context) error {
	return s.onSession(ctx, func(ctx context.Context) error {
		_, err := s.sendVerification(ctx, nil)
		return err
	})
}

// BrowserSessions is GET /api/sessions: the account's signed-in browsers,
// most recently used first, the asking one marked current.
func (s *Server) BrowserSessions(ctx context.Context) (list []BrowserSession, err error) {
	err = s.onSession(ctx, func(ctx context.Context) error {
		out, err := s.listBrowserSessions(ctx, &listSessionsInput{PageParams{Page: 1, Limit: 1000}})
		if err == nil {
			list = out.Body.Data
		}
		return err
	})
	return list, err
}

// EndBrowserSession is DELETE /api/sessions/{id}: another user's session,
// or none, is ENOTFOUND.
func (s *Server) EndBrowserSession(ctx context.Context, id string) error {
	return s.onSession(ctx, func(ctx context.Context) error {
		_, err := s.deleteBrowserSession(ctx, &sessionInput{Session: id})
		return err
	})
}

// EndOtherBrowserSessions is DELETE /api/sessions: every browser of the
// account but the asking one is signed out.
func (s *Server) EndOtherBrowserSessions(ctx context.Context) error {
	return s.onSession(ctx, func(ctx context.Context) error {
		_, err := s.deleteOtherSessions(ctx, nil)
		return err
	})
}

// Tokens is GET /api/tokens: the account's tokens that work, newest first.
func (s *Server) Tokens(ctx context.Context) (list []ListedToken, err error) {
	err = s.onSession(ctx, func(ctx context.Context) error {
		out, err := s.listTokens(ctx, &listTokensInput{PageParams{Page: 1, Limit: 1000}})
		if err == nil {
			list = out.Body.Data
		}
		return err
	})
	return list, err
}

// RevokeToken is DELETE /api/tokens/{id}: another user's token, or none,
// is ENOTFOUND.
func (s *Server) RevokeToken(ctx context.Context, id string) error {
	return s.onSession(ctx, func(ctx context.Context) error {
		_, err := s.deleteToken(ctx, &tokenInput{Token: id})
		return err
	})
}

// DeleteAccount is DELETE /api/users/me: it needs the session confirmed
// (423), removes the user and everything of theirs, and ends the session.
func (s *Server) DeleteAccount(ctx context.Context) error {
	return s.onSession(ctx, func(ctx context.Context) error {
		_, err := s.deleteCurrentUser(ctx, nil)
		return err
	})
}

// onSession runs f with ctx carrying the browser session's user.
func (s *Server) onSession(ctx context.Context, f func(context.Context) error) error {
	ctx, err := s.asSession(ctx)
	if err != nil {
		return err
	}
	return f(ctx)
}
