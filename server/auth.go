package server

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/recur-journal/recur/store"
)

// Session keys.
const (
	sessionUser        = store.SessionUserKey
	sessionConfirmedAt = "confirmed_at"    // unix seconds of the last confirmation
	sessionPendingUser = "pending_user_id" // signed in but for the second factor
	sessionRemember    = "remember"        // the pending sign-in asked to be remembered
)

// ConfirmationLifetime is how long a confirmed session stays confirmed.
const ConfirmationLifetime = 15 * time.Minute

// principal is who a request acts for: a token's user, or a session's.
type principal struct {
	User  *store.User
	Token *store.Token // nil on a session
}

type principalKey struct{}

// current returns the signed-in user of a request that passed authenticate.
func current(ctx context.Context) *principal {
	p, _ := ctx.Value(principalKey{}).(*principal)
	return p
}

// requiredScope is the scope an operation asks of a token, and whether the
// operation needs anyone signed in at all.
func requiredScope(op *huma.Operation) (string, bool) {
	for _, req := range op.Security {
		if len(req) == 0 {
			return "", false // an empty requirement: a credential is optional
		}
		if scopes, ok := req[securityBearer]; ok {
			if len(scopes) > 0 {
				return scopes[0], true
			}
			return "", true
		}
	}
	return "", false
}

// authenticate lets open operations through and, for the others, takes the
// bearer token (401 when missing, expired or revoked; 403 naming the scope
// it lacks) or, without one, the browser session.
func (s *Server) authenticate(ctx huma.Context, next func(huma.Context)) {
	scope, protected := requiredScope(ctx.Operation())
	if !protected {
		next(ctx)
		return
	}
	p, err := s.resolve(ctx.Context(), ctx.Header("Authorization"))
	if err != nil {
		s.deny(ctx, toAPIError(ctx.Context(), err))
		return
	}
	if p.Token != nil && scope != "" && !p.Token.Can(scope) {
		s.deny(ctx, &apiError{status: http.StatusForbidden, Message: "This token lacks the " + scope + " scope."})
		return
	}
	next(huma.WithValue(ctx, principalKey{}, p))
}

var errUnauthenticated = &apiError{status: http.StatusUnauthorized, Message: "Unauthenticated.",
	headers: http.Header{"Www-Authenticate": {`Bearer realm="recur"`}}}

// resolve finds who a request acts for from its Authorization header or session.
func (s *Server) resolve(ctx context.Context, authorization string) (*principal, error) {
	if bearer, ok := bearerToken(authorization); ok {
		token, user, err := s.opts.Store.Authenticate(ctx, bearer)
		if store.ErrorCode(err) == store.EUNAUTHORIZED {
			return nil, errUnauthenticated
		}
		if err != nil {
			return nil, err
		}
		return &principal{User: user, Token: token}, nil
	}
	id := s.sessions.GetString(ctx, sessionUser)
	if id == "" {
		return nil, errUnauthenticated
	}
	user, err := s.opts.Store.FindUserByID(ctx, id)
	if store.ErrorCode(err) == store.ENOTFOUND {
		return nil, errUnauthenticated
	}
	if err != nil {
		return nil, err
	}
	s.noteSessionUse(ctx, false)
	return &principal{User: user}, nil
}

// bearerToken takes the token out of an Authorization header. The scheme is
// case-insensitive (RFC 9110, section 11.1): "bearer x" is "Bearer x".
func bearerToken(authorization string) (string, bool) {
	scheme, token, ok := strings.Cut(strings.TrimSpace(authorization), " ")
	token = strings.TrimSpace(token)
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" {
		return "", false
	}
	return token, true
}

// toAPIError makes any error an apiError, as Huma would.
func toAPIError(ctx context.Context, err error) *apiError {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae
	}
	return buildError(ctx, http.StatusInternalServerError, "", err)
}

func (s *Server) deny(ctx huma.Context, e *apiError) {
	for k, v := range e.headers {
		for _, vv := range v {
			ctx.AppendHeader(k, vv)
		}
	}
	if err := huma.WriteErr(s.api, ctx, e.status, e.Message, e); err != nil && !errors.Is(err, context.Canceled) {
		logger(ctx.Context()).Warn("write error response", "error", err)
	}
}

// signIn starts a signed-in session for the user: the session token is
// renewed first, so a token planted before sign-in is worth nothing.
func (s *Server) signIn(ctx context.Context, userID string, remember bool) error {
	if err := s.sessions.RenewToken(ctx); err != nil {
		return err
	}
	s.sessions.Remove(ctx, sessionPendingUser)
	s.sessions.Remove(ctx, sessionRemember)
	s.sessions.Put(ctx, sessionUser, userID)
	s.sessions.RememberMe(ctx, remember)
	s.noteSessionUse(ctx, true)
	return nil
}

// confirmed reports whether the request's session was confirmed recently.
func (s *Server) confirmed(ctx context.Context) bool {
	if current(ctx).Token != nil {
		return false
	}
	at := s.sessions.GetInt64(ctx, sessionConfirmedAt)
	return at > 0 && s.opts.Store.Now().Sub(time.Unix(at, 0)) < ConfirmationLifetime
}

var errConfirmationRequired = &apiError{status: http.StatusLocked, Message: "Password confirmation required."}

// checkOrigin refuses unsafe requests that ride on the session cookie from
// another origin (cross-site request forgery). Only an API request that
// carries a bearer token and no session cookie skips the check: it holds
// no ambient credential. Pages are for the session alone, and a request
// with the session cookie is checked whatever other headers it brings.
func (s *Server) checkOrigin(next http.Handler) http.Handler {
	cop := http.NewCrossOriginProtection()
	if s.origin != "" {
		if err := cop.AddTrustedOrigin(s.origin); err != nil {
			s.opts.Logger.Warn("base_url is not an origin; only same-host requests are trusted", "base_url", s.opts.BaseURL)
		}
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.tokenOnly(r) {
			if err := cop.Check(r); err != nil {
				writeJSONError(w, &apiError{status: http.StatusForbidden, Message: "Cross-origin request refused."})
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// tokenOnly reports whether r is an API request whose only credential is a
// bearer token.
func (s *Server) tokenOnly(r *http.Request) bool {
	if !strings.HasPrefix(r.URL.Path, "/api/") {
		return false
	}
	if _, err := r.Cookie(s.sessions.Cookie.Name); err == nil {
		return false
	}
	_, ok := bearerToken(r.Header.Get("Authorization"))
	return ok
}
