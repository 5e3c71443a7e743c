package account

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/recur-journal/recur/internal/i18n"
	"github.com/recur-journal/recur/store"
)

// BrowserSession is a signed-in browser as the account's settings list it.
type BrowserSession struct {
	ID                               string // not the cookie's value, which is never shown
	Name                             string // made readable from the user agent, such as "Firefox on Linux"
	UserAgent                        string
	IP                               string
	Current                          bool // the session that asks
	CreatedAt, LastUsedAt, ExpiresAt time.Time
}

// ListedToken is a token of the account as the settings list it: never
// its secret, which is not kept.
type ListedToken struct {
	store.ListedToken
	Current bool // the token that asks
}

// BrowserSessions lists the live browser sessions of c's account, most
// recently used first, one page of them, and how many there are.
func (a *Accounts) BrowserSessions(ctx context.Context, c *Caller, p store.Page) ([]BrowserSession, int, error) {
	list, total, err := a.opts.Store.ListSessions(ctx, c.User.ID, p)
	if err != nil {
		return nil, 0, err
	}
	mine := a.sessionToken(ctx, c)
	out := make([]BrowserSession, len(list))
	for i, ss := range list {
		out[i] = BrowserSession{ID: ss.ID, Name: browserName(ss.UserAgent), UserAgent: ss.UserAgent, IP: ss.IP,
			Current: mine != "" && ss.Token == mine, CreatedAt: ss.CreatedAt, LastUsedAt: ss.LastSeenAt, ExpiresAt: ss.ExpiresAt}
	}
	return out, total, nil
}

// EndBrowserSession signs the account's browser session id out: another
// user's session, or none, is ENOTFOUND. Ending one's own is signing out.
func (a *Accounts) EndBrowserSession(ctx context.Context, c *Caller, id string) error {
	if err := a.opts.Store.EndSession(ctx, c.User.ID, id); err != nil {
		return err
	}
	if mine := a.sessionToken(ctx, c); mine != "" {
		if _, found, err := a.opts.Store.Sessions().FindCtx(ctx, mine); err != nil || !found {
			// The caller signed itself out: without this, saving the session
			// at the end of the request would bring it back.
			return a.opts.Session.Destroy(ctx)
		}
	}
	return nil
}

// EndOtherBrowserSessions signs out every browser session of the account
// but the asking one (with a token: every one).
func (a *Accounts) EndOtherBrowserSessions(ctx context.Context, c *Caller) error {
	_, err := a.opts.Store.EndOtherSessions(ctx, c.User.ID, a.sessionToken(ctx, c))
	return err
}

// sessionToken is the token of c's session, or "" when c came with a bearer token.
func (a *Accounts) sessionToken(ctx context.Context, c *Caller) string {
	if c.Token != nil {
		return ""
	}
	return a.opts.Session.Token(ctx)
}

// Tokens lists the account's tokens that work, newest first, one page of
// them, and how many there are.
func (a *Accounts) Tokens(ctx context.Context, c *Caller, p store.Page) ([]ListedToken, int, error) {
	list, total, err := a.opts.Store.ListLiveTokens(ctx, c.User.ID, p)
	if err != nil {
		return nil, 0, err
	}
	out := make([]ListedToken, len(list))
	for i := range list {
		out[i] = ListedToken{ListedToken: list[i], Current: c.Token != nil && c.Token.ID == list[i].ID}
	}
	return out, total, nil
}

// RevokeToken revokes the account's token id: another user's token, or
// none, is ENOTFOUND. Revoking an app's token removes the app.
func (a *Accounts) RevokeToken(ctx context.Context, c *Caller, id string) error {
	return a.opts.Store.RevokeLiveToken(ctx, c.User.ID, id)
}

var errSessionOnly = &Error{Status: http.StatusForbidden,
	Message: i18n.Key("Only a browser session can delete the account: sign in in the browser, confirm the session and delete it there.")}

// DeleteAccount removes c's user and everything of theirs, and ends the
// session. Only a browser session may (403), confirmed (423).
func (a *Accounts) DeleteAccount(ctx context.Context, c *Caller) error {
	if c.Token != nil {
		return errSessionOnly
	}
	if !a.Confirmed(ctx, c) {
		return errConfirmationRequired
	}
	if _, err := a.opts.Store.DeleteUser(ctx, c.User.ID); err != nil {
		return err
	}
	a.log(ctx).Info("account deleted", "user_id", c.User.ID)
	return a.opts.Session.Destroy(ctx)
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
