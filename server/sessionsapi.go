package server

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/recur-journal/recur/store"
)

// sessionSeenGranularity bounds how often a session's last use is saved: a
// busy page would otherwise turn every read into a write.
const sessionSeenGranularity = time.Minute

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
	o.Security = []map[string][]string{{securityBearer: {scopeAll}}, {securitySession: {}}}
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
	list, total, err := s.opts.Store.ListSessions(ctx, current(ctx).User.ID, in.store())
	if err != nil {
		return nil, err
	}
	mine := s.sessionToken(ctx)
	out := make([]BrowserSession, len(list))
	for i, ss := range list {
		out[i] = BrowserSession{ID: ss.ID, Name: browserName(ss.UserAgent), UserAgent: ss.UserAgent, IP: ss.IP,
			Current: mine != "" && ss.Token == mine, CreatedAt: Timestamp(ss.CreatedAt), LastUsedAt: Timestamp(ss.LastSeenAt),
			ExpiresAt: Timestamp(ss.ExpiresAt)}
	}
	return newList(out, total, in.PageParams, link(ctx, "/sessions")), nil
}

func (s *Server) deleteBrowserSession(ctx context.Context, in *sessionInput) (*struct{}, error) {
	if err := s.opts.Store.EndSession(ctx, current(ctx).User.ID, in.Session); err != nil {
		return nil, err
	}
	if mine := s.sessionToken(ctx); mine != "" && !s.sessionLive(ctx) {
		// The caller signed itself out: without this, saving the session at
		// the end of the request would bring it back.
		return nil, s.sessions.Destroy(ctx)
	}
	return nil, nil
}

func (s *Server) deleteOtherSessions(ctx context.Context, _ *struct{}) (*struct{}, error) {
	_, err := s.opts.Store.EndOtherSessions(ctx, current(ctx).User.ID, s.sessionToken(ctx))
	return nil, err
}

// sessionToken is the cookie token of the caller's session, or "" when the
// caller came with a bearer token.
func (s *Server) sessionToken(ctx context.Context) string {
	if current(ctx).Token != nil {
		return ""
	}
	return s.sessions.Token(ctx)
}

// sessionLive reports whether the caller's session is still in the store.
func (s *Server) sessionLive(ctx context.Context) bool {
	_, found, err := s.opts.Store.Sessions().FindCtx(ctx, s.sessions.Token(ctx))
	return err == nil && found
}

type userAgentKey struct{}

// userAgent is the client's User-Agent, put in the context by withRequestLog.
func userAgent(ctx context.Context) string {
	ua, _ := ctx.Value(userAgentKey{}).(string)
	return ua
}

// noteSessionUse records in a signed-in session when, from where and with
// what browser it was used, at most once a minute, for GET /sessions: the
// session store copies these values into its columns when it saves.
func (s *Server) noteSessionUse(ctx context.Context, force bool) {
	now := s.opts.Store.Now()
	last := s.sessions.GetInt64(ctx, store.SessionSeenKey)
	if !force && last > 0 && now.Sub(time.Unix(last, 0)) < sessionSeenGranularity {
		return
	}
	s.sessions.Put(ctx, store.SessionSeenKey, now.Unix())
	s.sessions.Put(ctx, store.SessionUserAgentKey, userAgent(ctx))
	s.sessions.Put(ctx, store.SessionIPKey, remoteIP(ctx))
}

// browserName makes a user agent readable: "Firefox on Linux", "Safari on
// iPhone", "curl". It knows the common browsers and systems only; anything
// else keeps the agent's first word.
func browserName(ua string) string {
	if strings.TrimSpace(ua) == "" {
		return "Unknown browser"
	}
	has := func(s string) bool { return strings.Contains(ua, s) }
	var browser string
	switch {
	case has("Edg/") || has("Edge/"):
		browser = "Edge"
	case has("OPR/") || has("Opera"):
		browser = "Opera"
	case has("Firefox/") || has("FxiOS/"):
		browser = "Firefox"
	case has("Chromium/"):
		browser = "Chromium"
	case has("Chrome/") || has("CriOS/"):
		browser = "Chrome"
	case has("Safari/") && has("Version/"):
		browser = "Safari"
	default:
		first, _, _ := strings.Cut(strings.TrimSpace(ua), " ")
		name, _, _ := strings.Cut(first, "/")
		return name
	}
	var system string
	switch {
	case has("iPhone"):
		system = "iPhone"
	case has("iPad"):
		system = "iPad"
	case has("Android"):
		system = "Android"
	case has("Windows"):
		system = "Windows"
	case has("Mac OS X") || has("Macintosh"):
		system = "macOS"
	case has("CrOS"):
		system = "ChromeOS"
	case has("Linux"):
		system = "Linux"
	default:
		return browser
	}
	return browser + " on " + system
}
