package server

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"github.com/recur-journal/recur/store"
)

// principal is who a request acts for.
type principal struct {
	User  *store.User
	Token *store.Token
}

type principalKey struct{}

// current returns the signed-in user of a request that passed authenticate.
func current(ctx context.Context) *principal {
	p, _ := ctx.Value(principalKey{}).(*principal)
	return p
}

// requiredScope is the scope an operation asks for, "" for an open one.
func requiredScope(op *huma.Operation) (string, bool) {
	for _, req := range op.Security {
		for _, scopes := range req {
			if len(scopes) > 0 {
				return scopes[0], true
			}
			return "", true
		}
	}
	return "", false
}

// authenticate lets open operations through and, for the others, resolves
// the bearer token (401 when missing, expired or revoked) and checks that it
// carries the operation's scope (403 naming the scope).
func (s *Server) authenticate(ctx huma.Context, next func(huma.Context)) {
	scope, protected := requiredScope(ctx.Operation())
	if !protected {
		next(ctx)
		return
	}
	header := ctx.Header("Authorization")
	bearer, ok := strings.CutPrefix(header, "Bearer ")
	if !ok || strings.TrimSpace(bearer) == "" {
		s.deny(ctx, &apiError{status: http.StatusUnauthorized, Message: "Unauthenticated.",
			headers: http.Header{"Www-Authenticate": {`Bearer realm="recur"`}}})
		return
	}
	token, user, err := s.opts.Store.Authenticate(ctx.Context(), strings.TrimSpace(bearer))
	if err != nil {
		if store.ErrorCode(err) == store.EUNAUTHORIZED {
			s.deny(ctx, &apiError{status: http.StatusUnauthorized, Message: "Unauthenticated.",
				headers: http.Header{"Www-Authenticate": {`Bearer realm="recur", error="invalid_token"`}}})
			return
		}
		s.deny(ctx, buildError(ctx.Context(), http.StatusInternalServerError, "authenticate", err))
		return
	}
	if scope != "" && !token.Can(scope) {
		s.deny(ctx, &apiError{status: http.StatusForbidden, Message: "This token lacks the " + scope + " scope."})
		return
	}
	next(huma.WithValue(ctx, principalKey{}, &principal{User: user, Token: token}))
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
