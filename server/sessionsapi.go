package server

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/recur-journal/recur/account"
)

// BrowserSession is a signed-in browser as the account's settings list it.
type BrowserSession struct {
	ID         string    `json:"id" format:"uuid" doc:"The session's id. It is not the cookie's value, which is never shown."`
	Name       string    `json:"name" doc:"What the browser calls itself, made readable from its user agent, such as \"Firefox on Linux\"."`
	UserAgent  string    `json:"user_agent" doc:"The browser's User-Agent at its last use, at most 255 characters."`
	IP         string    `json:"ip" doc:"The address the browser last came from (through a trusted proxy, the client's)."`
	Current    bool      `json:"current" doc:"True for the session that asks."`
	CreatedAt  Timestamp `json:"created_at" doc:"When the browser signed in."`
	LastUsedAt Timestamp `json:"last_used_at" doc:"When the browser was last used, to the minute."`
	ExpiresAt  Timestamp `json:"expires_at" doc:"When the session ends unless it is signed out before."`
}

type sessionInput struct {
	Session string `path:"session" format:"uuid" doc:"The session's id."`
}

type listSessionsInput struct {
	PageParams
}

// accountManagement is what the routes that list and revoke credentials say
// of who may call them.
const accountManagement = "Needs a signed-in session, or a token with every scope (`*`): listing and revoking sign-ins is managing the account, " +
	"so a token with fewer scopes gets 403 naming the `*` it lacks, and an app's token never has it unless it was given `*`."

// accountOp describes an operation that only a session or a token with
// every scope may call (see accountManagement).
func accountOp(method, path, id, summary string, errs ...int) huma.Operation {
	o := op(method, path, id, "Account", summary, "", append([]int{http.StatusUnauthorized, http.StatusForbidden}, errs...)...)
	o.Security = []map[string][]string{{securityBearer: {string(account.ScopeAll)}}, {securitySession: {}}}
	o.Description = accountManagement
	return o
}

func (s *Server) registerBrowserSessions() {
	o := accountOp(http.MethodGet, "/sessions", "list-sessions", "List the signed-in browsers, most recently used first", http.StatusUnprocessableEntity)
	o.Description += " Each live browser session of the account, `current` for the one that asks (none is, with a token). Tokens are listed by GET /tokens."
	huma.Register(s.api, o, s.listBrowserSessions)

	o = accountOp(http.MethodDelete, "/sessions/{session}", "delete-session", "Sign a browser out", http.StatusNotFound)
	o.DefaultStatus = http.StatusNoContent
	o.Description += " The browser is signed out at once: its next request answers 401. Signing out the session that asks is signing out."
	huma.Register(s.api, o, s.deleteBrowserSession)

	o = accountOp(http.MethodDelete, "/sessions", "delete-other-sessions", "Sign out every other browser")
	o.DefaultStatus = http.StatusNoContent
	o.Description += " Signs out every browser session of the account but the one that asks (with a token: every one). Tokens stay; revoke them with DELETE /tokens/{token}."
	huma.Register(s.api, o, s.deleteOtherSessions)
}

func (s *Server) listBrowserSessions(ctx context.Context, in *listSessionsInput) (*struct{ Body List[BrowserSession] }, error) {
	list, total, err := s.accounts.BrowserSessions(ctx, current(ctx), in.store())
	if err != nil {
		return nil, err
	}
	out := make([]BrowserSession, len(list))
	for i, ss := range list {
		out[i] = BrowserSession{ID: ss.ID, Name: ss.Name, UserAgent: ss.UserAgent, IP: ss.IP, Current: ss.Current,
			CreatedAt: Timestamp(ss.CreatedAt), LastUsedAt: Timestamp(ss.LastUsedAt), ExpiresAt: Timestamp(ss.ExpiresAt)}
	}
	return newList(out, total, in.PageParams, link(ctx, "/sessions")), nil
}

func (s *Server) deleteBrowserSession(ctx context.Context, in *sessionInput) (*struct{}, error) {
	return nil, s.accounts.EndBrowserSession(ctx, current(ctx), in.Session)
}

func (s *Server) deleteOtherSessions(ctx context.Context, _ *struct{}) (*struct{}, error) {
	return nil, s.accounts.EndOtherBrowserSessions(ctx, current(ctx))
}
