package server

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/recur-journal/recur/mail"
	"github.com/recur-journal/recur/store"
)

// MailCodeLifetime is how long a mailed code works.
const MailCodeLifetime = 10 * time.Minute

// TwoFactorState answers a sign-in step.
type TwoFactorState struct {
	TwoFactor bool `json:"two_factor" doc:"True when the sign-in waits for the second factor: POST /two-factor-challenge next."`
}

type loginInput struct {
	Body struct {
		Email    string `json:"email" minLength:"1" maxLength:"255"`
		Password string `json:"password" minLength:"1" maxLength:"1024"`
		Remember bool   `json:"remember,omitempty" doc:"Keep the session after the browser closes, for [auth] session_lifetime."`
	}
}

type challengeInput struct {
	Body struct {
		Code         string `json:"code,omitempty" doc:"The six digits of the authenticator app."`
		RecoveryCode string `json:"recovery_code,omitempty" doc:"One of the recovery codes; each works once."`
	}
}

type passwordInput struct {
	Body struct {
		Password string `json:"password" minLength:"1" maxLength:"1024"`
	}
}

type codeInput struct {
	Body struct {
		Code string `json:"code" minLength:"1" maxLength:"64" doc:"The code from the mail."`
	}
}

// Message is a body that only says something.
type Message struct {
	Message string `json:"message"`
}

// ConfirmedStatus says whether the session is confirmed.
type ConfirmedStatus struct {
	Confirmed bool `json:"confirmed"`
}

var errOnlySession = &apiError{status: http.StatusBadRequest, Message: "Only a session can be confirmed."}

func (s *Server) registerSessions() {
	o := op(http.MethodPost, "/login", "login", "Sign-in", "Sign in with address and password", "", http.StatusUnprocessableEntity, http.StatusTooManyRequests)
	o.Description = "Open. Starts a browser session (cookie recur_session). With two-factor on, answers two_factor true and the session waits for POST /two-factor-challenge. " +
		"Limited to 5 tries a minute per address and IP, and 20 at once then one every 6 seconds per IP across addresses; " +
		"10 wrong passwords for one account within 15 minutes, from any addresses, lock its password sign-in for 15 minutes, " +
		"during which the right password gets the same 422 as a wrong one (as every address does, known or not); " +
		"429 with Retry-After also when the server is checking as many passwords as it has cores for longer than 2 seconds."
	huma.Register(s.api, o, s.login)

	o = op(http.MethodPost, "/two-factor-challenge", "two-factor-challenge", "Sign-in", "Give the second factor of a sign-in", "", http.StatusUnprocessableEntity, http.StatusTooManyRequests)
	o.Description = "Open, on the session that signed in. Takes the authenticator's code or a recovery code. An authenticator code works once. " +
		"5 wrong codes for one account within 15 minutes, from any sessions and addresses, lock its second factor for 15 minutes: 429 with Retry-After."
	huma.Register(s.api, o, s.twoFactorChallenge)

	o = op(http.MethodPost, "/logout", "logout", "Sign-in", "Sign out", "*", http.StatusUnauthorized)
	o.Description = "Ends the session; called with a token, revokes that token."
	huma.Register(s.api, o, s.logout)

	o = op(http.MethodPost, "/user/confirm-password", "confirm-password", "Sign-in", "Confirm the session with the password", "*",
		http.StatusBadRequest, http.StatusUnauthorized, http.StatusUnprocessableEntity, http.StatusTooManyRequests)
	o.Description = "Sensitive actions need a session confirmed within the last 15 minutes. Only a session can be confirmed: a token gets 400. " +
		"429 with Retry-After after 5 tries a minute, while the account's password sign-in is locked (10 wrong passwords in 15 minutes, here or at POST /login), " +
		"or when the server is busy checking other passwords."
	huma.Register(s.api, o, s.confirmPassword)

	o = op(http.MethodPost, "/user/confirmation-codes", "send-confirmation-code", "Sign-in", "Mail a code to confirm the session", "*",
		http.StatusBadRequest, http.StatusUnauthorized, http.StatusTooManyRequests)
	o.DefaultStatus = http.StatusNoContent
	o.Description = "For accounts without a password: mails a code to the account's own address, to give to POST /user/confirmations. It works for 10 minutes."
	huma.Register(s.api, o, s.sendConfirmationCode)

	o = op(http.MethodPost, "/user/confirmations", "confirm-session", "Sign-in", "Confirm the session with a mailed code", "*",
		http.StatusBadRequest, http.StatusUnauthorized, http.StatusUnprocessableEntity, http.StatusTooManyRequests)
	o.DefaultStatus = http.StatusNoContent
	o.Description = "Leaves the same mark as confirming by password. Only a session can be confirmed: a token gets 400."
	huma.Register(s.api, o, s.confirmSession)

	huma.Register(s.api, op(http.MethodGet, "/user/confirmed-password-status", "confirmed-password-status", "Sign-in",
		"Whether the session was confirmed within the last 15 minutes", "*", http.StatusUnauthorized), s.confirmedStatus)
}

var errBadCredentials = invalid("email", "These credentials do not match our records.")

func (s *Server) login(ctx context.Context, in *loginInput) (*struct{ Body TwoFactorState }, error) {
	email := store.NormaliseEmail(in.Body.Email)
	if err := s.limiter.allow("login-ip", remoteIP(ctx)); err != nil {
		return nil, err
	}
	if err := s.limiter.allow("login", email+"|"+remoteIP(ctx)); err != nil {
		return nil, err
	}
	user, err := s.opts.Store.FindUserByEmail(ctx, email)
	if store.ErrorCode(err) == store.ENOTFOUND {
		user = nil // checked against a stand-in hash, so timing tells nothing
	} else if err != nil {
		return nil, err
	}
	until, err := s.lockedUntil(ctx, user, store.FactorPassword)
	if err != nil {
		return nil, err
	}
	ok, err := s.passwords.check(ctx, s.opts.Store, user, in.Body.Password)
	if err != nil {
		return nil, err
	}
	// A locked account answers as a wrong password does, after the same
	// work, so that a lock tells nobody the address has an account.
	if !ok || !until.IsZero() {
		if err := s.failed(ctx, user, store.FactorPassword); err != nil {
			return nil, err
		}
		return nil, errBadCredentials
	}
	if err := s.passed(ctx, user, store.FactorPassword); err != nil {
		return nil, err
	}
	return s.afterFirstFactor(ctx, user, in.Body.Remember)
}

// afterFirstFactor signs the user in, or, with two-factor on, leaves the
// session waiting for the second factor.
func (s *Server) afterFirstFactor(ctx context.Context, user *store.User, remember bool) (*struct{ Body TwoFactorState }, error) {
	if user.TwoFactor() {
		if err := s.sessions.RenewToken(ctx); err != nil {
			return nil, err
		}
		s.sessions.Remove(ctx, sessionUser)
		s.sessions.Put(ctx, sessionPendingUser, user.ID)
		s.sessions.Put(ctx, sessionRemember, remember)
		return &struct{ Body TwoFactorState }{TwoFactorState{TwoFactor: true}}, nil
	}
	if err := s.signIn(ctx, user.ID, remember); err != nil {
		return nil, err
	}
	return &struct{ Body TwoFactorState }{TwoFactorState{TwoFactor: false}}, nil
}

func (s *Server) twoFactorChallenge(ctx context.Context, in *challengeInput) (*struct{ Body TwoFactorState }, error) {
	pending := s.sessions.GetString(ctx, sessionPendingUser)
	if err := s.limiter.allow("two-factor", pending+"|"+remoteIP(ctx)); err != nil {
		return nil, err
	}
	if pending == "" {
		return nil, invalid("code", "No sign-in is waiting for a second factor; sign in first.")
	}
	user, err := s.opts.Store.FindUserByID(ctx, pending)
	if err != nil {
		return nil, err
	}
	if err := s.checkSecondFactor(ctx, user, in.Body.Code, in.Body.RecoveryCode); err != nil {
		return nil, err
	}
	if err := s.signIn(ctx, user.ID, s.sessions.GetBool(ctx, sessionRemember)); err != nil {
		return nil, err
	}
	return &struct{ Body TwoFactorState }{TwoFactorState{TwoFactor: false}}, nil
}

// checkSecondFactor checks an authenticator code or uses up a recovery code,
// within the account's lock: wrong ones count against it, whatever the
// address they come from.
func (s *Server) checkSecondFactor(ctx context.Context, user *store.User, code, recovery string) error {
	if recovery == "" && code == "" {
		return invalid("code", "The code field is required: the authenticator's code, or a recovery_code.")
	}
	until, err := s.lockedUntil(ctx, user, store.FactorTwoFactor)
	if err != nil {
		return err
	}
	if !until.IsZero() {
		return errLocked("two-factor codes", until, s.opts.Store.Now())
	}
	if recovery != "" {
		err = s.opts.Store.UseRecoveryCode(ctx, user.ID, s.keys.mac("recovery", normaliseRecovery(recovery)))
	} else {
		err = s.checkTOTP(ctx, user, code)
	}
	if err == nil {
		return s.passed(ctx, user, store.FactorTwoFactor)
	}
	var ae *apiError
	if store.ErrorCode(err) == store.EINVALID || (errors.As(err, &ae) && ae.status == http.StatusUnprocessableEntity) {
		if ferr := s.failed(ctx, user, store.FactorTwoFactor); ferr != nil {
			return ferr
		}
	}
	return err
}

func (s *Server) logout(ctx context.Context, _ *struct{}) (*struct{ Body Message }, error) {
	p := current(ctx)
	if p.Token != nil {
		if err := s.opts.Store.RevokeToken(ctx, p.User.ID, p.Token.ID); err != nil {
			return nil, err
		}
		return &struct{ Body Message }{Message{"The token is revoked."}}, nil
	}
	if err := s.sessions.Destroy(ctx); err != nil {
		return nil, err
	}
	return &struct{ Body Message }{Message{"Signed out."}}, nil
}

func (s *Server) confirmPassword(ctx context.Context, in *passwordInput) (*struct{ Body ConfirmedStatus }, error) {
	p := current(ctx)
	if p.Token != nil {
		return nil, errOnlySession
	}
	if err := s.limiter.allow("confirm", p.User.ID); err != nil {
		return nil, err
	}
	if p.User.PasswordHash == "" {
		return nil, invalid("password", "This account has no password; confirm with a mailed code instead (POST /user/confirmation-codes).")
	}
	until, err := s.lockedUntil(ctx, p.User, store.FactorPassword)
	if err != nil {
		return nil, err
	}
	if !until.IsZero() {
		return nil, errLocked("passwords", until, s.opts.Store.Now())
	}
	ok, err := s.passwords.check(ctx, s.opts.Store, p.User, in.Body.Password)
	if err != nil {
		return nil, err
	}
	if !ok {
		if err := s.failed(ctx, p.User, store.FactorPassword); err != nil {
			return nil, err
		}
		return nil, invalid("password", "The password is incorrect.")
	}
	if err := s.passed(ctx, p.User, store.FactorPassword); err != nil {
		return nil, err
	}
	s.sessions.Put(ctx, sessionConfirmedAt, s.opts.Store.Now().Unix())
	return &struct{ Body ConfirmedStatus }{ConfirmedStatus{true}}, nil
}

func (s *Server) sendConfirmationCode(ctx context.Context, _ *struct{}) (*struct{}, error) {
	p := current(ctx)
	if p.Token != nil {
		return nil, errOnlySession
	}
	if err := s.limiter.allow("confirmation-code", p.User.ID); err != nil {
		return nil, err
	}
	code := digits(6)
	if err := s.opts.Store.CreateMailCode(ctx, p.User.ID, store.CodeConfirm, s.keys.mac(store.CodeConfirm, p.User.ID, code), MailCodeLifetime); err != nil {
		return nil, err
	}
	s.send(codeMail(p.User.Email, "Your Recur confirmation code", "confirm this session", code))
	return nil, nil
}

func (s *Server) confirmSession(ctx context.Context, in *codeInput) (*struct{}, error) {
	p := current(ctx)
	if p.Token != nil {
		return nil, errOnlySession
	}
	if err := s.limiter.allow("confirm", p.User.ID); err != nil {
		return nil, err
	}
	code := strings.TrimSpace(in.Body.Code)
	if err := s.opts.Store.CheckMailCode(ctx, p.User.ID, store.CodeConfirm, s.keys.mac(store.CodeConfirm, p.User.ID, code), true); err != nil {
		return nil, err
	}
	s.sessions.Put(ctx, sessionConfirmedAt, s.opts.Store.Now().Unix())
	return nil, nil
}

func (s *Server) confirmedStatus(ctx context.Context, _ *struct{}) (*struct{ Body ConfirmedStatus }, error) {
	return &struct{ Body ConfirmedStatus }{ConfirmedStatus{s.confirmed(ctx)}}, nil
}

// send queues a mail, if there is anywhere to send it.
func (s *Server) send(m mail.Message) {
	if s.opts.Mailer != nil {
		s.opts.Mailer.Enqueue(m)
	}
}

type remoteKey struct{}

// remoteIP is the client's address, put in the context by withRequestLog.
func remoteIP(ctx context.Context) string {
	ip, _ := ctx.Value(remoteKey{}).(string)
	return ip
}
