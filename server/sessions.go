package server

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"
)

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

func (s *Server) login(ctx context.Context, in *loginInput) (*struct{ Body TwoFactorState }, error) {
	twoFactor, err := s.accounts.SignInWithPassword(ctx, in.Body.Email, in.Body.Password, in.Body.Remember)
	return twoFactorState(twoFactor), err
}

// twoFactorState is the answer to a sign-in step.
func twoFactorState(twoFactor bool) *struct{ Body TwoFactorState } {
	return &struct{ Body TwoFactorState }{TwoFactorState{TwoFactor: twoFactor}}
}

func (s *Server) twoFactorChallenge(ctx context.Context, in *challengeInput) (*struct{ Body TwoFactorState }, error) {
	if err := s.accounts.SignInSecondFactor(ctx, in.Body.Code, in.Body.RecoveryCode); err != nil {
		return nil, err
	}
	return twoFactorState(false), nil
}

func (s *Server) logout(ctx context.Context, _ *struct{}) (*struct{ Body Message }, error) {
	p := current(ctx)
	if p.Token != nil {
		if err := s.opts.Store.RevokeToken(ctx, p.User.ID, p.Token.ID); err != nil {
			return nil, err
		}
		return &struct{ Body Message }{Message{"The token is revoked."}}, nil
	}
	if err := s.accounts.SignOut(ctx); err != nil {
		return nil, err
	}
	return &struct{ Body Message }{Message{"Signed out."}}, nil
}

func (s *Server) confirmPassword(ctx context.Context, in *passwordInput) (*struct{ Body ConfirmedStatus }, error) {
	if err := s.accounts.ConfirmWithPassword(ctx, current(ctx), in.Body.Password); err != nil {
		return nil, err
	}
	return &struct{ Body ConfirmedStatus }{ConfirmedStatus{true}}, nil
}

func (s *Server) sendConfirmationCode(ctx context.Context, _ *struct{}) (*struct{}, error) {
	return nil, s.accounts.MailConfirmationCode(ctx, current(ctx))
}

func (s *Server) confirmSession(ctx context.Context, in *codeInput) (*struct{}, error) {
	return nil, s.accounts.ConfirmWithCode(ctx, current(ctx), in.Body.Code)
}

func (s *Server) confirmedStatus(ctx context.Context, _ *struct{}) (*struct{ Body ConfirmedStatus }, error) {
	return &struct{ Body ConfirmedStatus }{ConfirmedStatus{s.accounts.Confirmed(ctx, current(ctx))}}, nil
}
