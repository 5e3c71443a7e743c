// Package account holds the rules of signing in and of what a signed-in
// person may do with their account: sign-in by password, by mailed link and
// code, the second factor, confirming a session, verifying the address, the
// sign-in mail, rate limits and lockouts, browser sessions, tokens and
// their scopes, and deleting the account. The API (server) and the pages
// (web) both call it, so a form follows exactly the rules of the route it
// stands for. The cookie session it works on is the caller's: see Session.
package account

import (
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/recur-journal/recur/internal/i18n"
	"github.com/recur-journal/recur/mail"
	"github.com/recur-journal/recur/store"
)

// Session is the browser session of the request in a context, as the
// account's rules need it. The server keeps it in a cookie; every method
// works on the session of ctx.
type Session interface {
	// Token is the session's own token, or "" when the request has none.
	Token(ctx context.Context) string
	// UserID is who is signed in on the session, or "". It notes the use,
	// for the list of signed-in browsers.
	UserID(ctx context.Context) string
	// SignIn renews the session's token, so that one planted before is
	// worth nothing, and signs userID in; remember keeps the session after
	// the browser closes.
	SignIn(ctx context.Context, userID string, remember bool) error
	// AwaitSecondFactor renews the token and leaves the session signed in
	// but for the second factor, remembering who and whether to remember.
	AwaitSecondFactor(ctx context.Context, userID string, remember bool) error
	// Pending is who signed in but for the second factor, or "".
	Pending(ctx context.Context) (userID string, remember bool)
	// Confirm marks the session confirmed at the time given; ConfirmedAt
	// is when it last was, or the zero time.
	Confirm(ctx context.Context, at time.Time)
	ConfirmedAt(ctx context.Context) time.Time
	// Destroy ends the session.
	Destroy(ctx context.Context) error
}

// Mailer queues a mail for sending.
type Mailer interface {
	Enqueue(m mail.Message)
}

// Options configures Accounts.
type Options struct {
	Store   *store.Store
	Session Session
	// Mailer sends the mail of sign-in and confirmation; nil drops it.
	Mailer Mailer
	// Secret signs links, hashes mailed codes and seals two-factor
	// secrets. It must stay the same across restarts.
	Secret []byte
	// BaseURL is where people reach this server, such as
	// https://journal.example.com: mailed links are made from it alone.
	// Empty means no link is mailed.
	BaseURL string
	// Signup lets an unknown address create an account by asking for a
	// sign-in mail.
	Signup bool
	// TokenLifetime is how long a token made by sign-in lasts; 0 means it never expires.
	TokenLifetime time.Duration
	// ClientIP is the address of the request in ctx, the key of the per-IP
	// limits; nil keys them all alike.
	ClientIP func(ctx context.Context) string
	// Log is the logger of the request in ctx; nil is slog.Default.
	Log func(ctx context.Context) *slog.Logger
}

// Accounts applies the account rules. Start runs its sign-in mail workers.
type Accounts struct {
	opts      Options
	keys      keys
	limiter   *limiter
	passwords *passwords
	origin    string // scheme://host of BaseURL

	signIns  chan signInRequest
	stopping chan struct{}
	stopOnce sync.Once
	workers  sync.WaitGroup
}

// New returns the account rules over opts.
func New(opts Options) *Accounts {
	opts.BaseURL = strings.TrimRight(opts.BaseURL, "/")
	if opts.ClientIP == nil {
		opts.ClientIP = func(context.Context) string { return "" }
	}
	if opts.Log == nil {
		opts.Log = func(context.Context) *slog.Logger { return slog.Default() }
	}
	a := &Accounts{opts: opts, keys: keys{opts.Secret}, limiter: newLimiter(opts.Store.Now),
		passwords: newPasswords(runtime.NumCPU(), DefaultPasswordWait),
		signIns:   make(chan signInRequest, signInQueueLen), stopping: make(chan struct{})}
	if u, err := url.Parse(opts.BaseURL); err == nil && opts.BaseURL != "" {
		a.origin = u.Scheme + "://" + u.Host
	}
	return a
}

// Caller is who a request acts for: a token's user, or a browser session's.
type Caller struct {
	User  *store.User
	Token *store.Token // nil on a browser session
}

// SessionUser is the id of the user signed in on the browser session of
// ctx, or "" when nobody is.
func (a *Accounts) SessionUser(ctx context.Context) string { return a.opts.Session.UserID(ctx) }

// SessionCaller is the signed-in user of the browser session of ctx. With
// nobody signed in, or the account gone, it is a 401 Error.
func (a *Accounts) SessionCaller(ctx context.Context) (*Caller, error) {
	id := a.opts.Session.UserID(ctx)
	if id == "" {
		return nil, ErrNoSession
	}
	user, err := a.opts.Store.FindUserByID(ctx, id)
	if store.ErrorCode(err) == store.ENOTFOUND {
		return nil, ErrNoSession
	} else if err != nil {
		return nil, err
	}
	return &Caller{User: user}, nil
}

// ErrNoSession is the 401 of an action asked for on a browser session
// nobody is signed in on.
var ErrNoSession = &Error{Status: http.StatusUnauthorized, Message: i18n.Key("Sign in first.")}

// send queues a mail, if there is anywhere to send it.
func (a *Accounts) send(m mail.Message) {
	if a.opts.Mailer != nil {
		a.opts.Mailer.Enqueue(m)
	}
}

func (a *Accounts) log(ctx context.Context) *slog.Logger { return a.opts.Log(ctx) }

// mailedLink returns the absolute URL of an API path for a mail, made from
// BaseURL alone; ok is false when BaseURL is not known.
func (a *Accounts) mailedLink(path string) (u string, ok bool) {
	if a.opts.BaseURL == "" {
		return "", false
	}
	return a.opts.BaseURL + "/api" + path, true
}

// baseURLFix says how to set base_url, for log lines about its absence.
const baseURLFix = "Set [server] base_url (or RECUR_SERVER_BASE_URL) to the address people open Recur at, like https://journal.example.com."
