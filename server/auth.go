package server

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"github.com/recur-journal/recur/account"
	"github.com/recur-journal/recur/store"
)

// principal is who a request acts for: a token's user, or a session's.
type principal = account.Caller

type principalKey struct{}

// current returns the signed-in user of a request that passed authenticate.
func current(ctx context.Context) *principal {
	p, _ := ctx.Value(principalKey{}).(*principal)
	return p
}

// requiredScope is the scope an operation asks of a token, and whether the
// operation needs anyone signed in at all.
func requiredScope(op *huma.Operation) (account.Scope, bool) {
	for _, req := range op.Security {
		if len(req) == 0 {
			return "", false // an empty requirement: a credential is optional
		}
		if scopes, ok := req[securityBearer]; ok {
			if len(scopes) > 0 {
				return account.Scope(scopes[0]), true
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
	if p.Token != nil && scope != "" && !p.Token.Can(string(scope)) {
		s.deny(ctx, &apiError{status: http.StatusForbidden, Message: "This token lacks the " + string(scope) + " scope."})
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
	p, err := s.accounts.SessionCaller(ctx)
	if err == account.ErrNoSession {
		return nil, errUnauthenticated
	}
	return p, err
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
