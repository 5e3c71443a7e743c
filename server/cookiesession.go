package server

import (
	"context"
	"time"

	"github.com/alexedwards/scs/v2"

	"github.com/recur-journal/recur/account"
	"github.com/recur-journal/recur/store"
)

// Session keys.
const (
	sessionUser        = store.SessionUserKey
	sessionConfirmedAt = "confirmed_at"    // unix seconds of the last confirmation
	sessionPendingUser = "pending_user_id" // signed in but for the second factor
	sessionRemember    = "remember"        // the pending sign-in asked to be remembered
)

// sessionSeenGranularity bounds how often a session's last use is saved: a
// busy page would otherwise turn every read into a write.
const sessionSeenGranularity = time.Minute

// cookieSession is the browser session, kept by scs in the recur_session
// cookie and the store's sessions table, as the account rules see it.
type cookieSession struct {
	m   *scs.SessionManager
	now func() time.Time
}

var _ account.Session = cookieSession{}

func (c cookieSession) Token(ctx context.Context) string { return c.m.Token(ctx) }

func (c cookieSession) UserID(ctx context.Context) string {
	id := c.m.GetString(ctx, sessionUser)
	if id != "" {
		c.noteUse(ctx, false)
	}
	return id
}

func (c cookieSession) SignIn(ctx context.Context, userID string, remember bool) error {
	if err := c.m.RenewToken(ctx); err != nil {
		return err
	}
	c.m.Remove(ctx, sessionPendingUser)
	c.m.Remove(ctx, sessionRemember)
	c.m.Put(ctx, sessionUser, userID)
	c.m.RememberMe(ctx, remember)
	c.noteUse(ctx, true)
	return nil
}

func (c cookieSession) AwaitSecondFactor(ctx context.Context, userID string, remember bool) error {
	if err := c.m.RenewToken(ctx); err != nil {
		return err
	}
	c.m.Remove(ctx, sessionUser)
	c.m.Put(ctx, sessionPendingUser, userID)
	c.m.Put(ctx, sessionRemember, remember)
	return nil
}

func (c cookieSession) Pending(ctx context.Context) (string, bool) {
	return c.m.GetString(ctx, sessionPendingUser), c.m.GetBool(ctx, sessionRemember)
}

func (c cookieSession) Confirm(ctx context.Context, at time.Time) {
	c.m.Put(ctx, sessionConfirmedAt, at.Unix())
}

func (c cookieSession) ConfirmedAt(ctx context.Context) time.Time {
	if at := c.m.GetInt64(ctx, sessionConfirmedAt); at > 0 {
		return time.Unix(at, 0)
	}
	return time.Time{}
}

func (c cookieSession) Destroy(ctx context.Context) error { return c.m.Destroy(ctx) }

// noteUse records in a signed-in session when, from where and with what
// browser it was used, at most once a minute, for the list of sessions:
// the session store copies these values into its columns when it saves.
func (c cookieSession) noteUse(ctx context.Context, force bool) {
	now := c.now()
	last := c.m.GetInt64(ctx, store.SessionSeenKey)
	if !force && last > 0 && now.Sub(time.Unix(last, 0)) < sessionSeenGranularity {
		return
	}
	c.m.Put(ctx, store.SessionSeenKey, now.Unix())
	c.m.Put(ctx, store.SessionUserAgentKey, userAgent(ctx))
	c.m.Put(ctx, store.SessionIPKey, remoteIP(ctx))
}

type userAgentKey struct{}

// userAgent is the client's User-Agent, put in the context by withRequestLog.
func userAgent(ctx context.Context) string {
	ua, _ := ctx.Value(userAgentKey{}).(string)
	return ua
}

type remoteKey struct{}

// remoteIP is the client's address, put in the context by withRequestLog.
func remoteIP(ctx context.Context) string {
	ip, _ := ctx.Value(remoteKey{}).(string)
	return ip
}
