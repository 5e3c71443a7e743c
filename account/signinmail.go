package account

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/recur-journal/recur/store"
)

// The sign-in mail workers: asking for a sign-in mail (AskSignInMail) only
// validates and rate-limits on the request path, then hands the address here. Looking
// the user up, making the code or link and queueing the mail happen in the
// background, so a known address and an unknown one answer after the same
// work.
const (
	signInWorkers  = 2
	signInQueueLen = 256
	signInTimeout  = 30 * time.Second
)

// signInRequest is one asked-for sign-in mail.
type signInRequest struct {
	email string // normalised
	web   bool   // a browser on this app: mail a link, not a code
	log   *slog.Logger
}

// Start runs the sign-in mail workers. Stop ends them.
func (a *Accounts) Start() {
	for range signInWorkers {
		a.workers.Add(1)
		go func() {
			defer a.workers.Done()
			for {
				select {
				case r := <-a.signIns:
					a.mailSignIn(r)
				case <-a.stopping:
					// Drain what was asked for before the HTTP server stopped.
					for {
						select {
						case r := <-a.signIns:
							a.mailSignIn(r)
						default:
							return
						}
					}
				}
			}
		}()
	}
}

// Stop ends the workers Start began, after the requests already handed to
// them. Call it once the HTTP server has stopped taking requests.
func (a *Accounts) Stop() {
	a.stopOnce.Do(func() { close(a.stopping) })
	a.workers.Wait()
}

// askSignIn hands a sign-in mail to the workers. A full queue makes the
// request wait, for known and unknown addresses alike, never drops it.
func (a *Accounts) askSignIn(ctx context.Context, r signInRequest) error {
	// The request's logger goes along (its lines carry the request id), not
	// its context, which ends with the request.
	r.log = a.log(ctx)
	select {
	case a.signIns <- r:
		return nil
	case <-a.stopping:
		return &Error{Status: http.StatusServiceUnavailable, Message: "The server is shutting down. Try again in a moment."}
	case <-ctx.Done():
		return ctx.Err()
	}
}

// mailSignIn finds (or, with sign-up on, makes) the account and mails it a
// link or a code. An unknown address gets nothing.
func (a *Accounts) mailSignIn(r signInRequest) {
	ctx, cancel := context.WithTimeout(context.Background(), signInTimeout)
	defer cancel()
	user, err := a.opts.Store.FindUserByEmail(ctx, r.email)
	if store.ErrorCode(err) == store.ENOTFOUND && a.opts.Signup {
		user = &store.User{Email: r.email}
		err = a.opts.Store.CreateUser(ctx, user)
	}
	if store.ErrorCode(err) == store.ENOTFOUND {
		// Only the owner reads this: the answer was given already, the same
		// for every address.
		r.log.Info("sign-in mail not sent: no account has this address; add it with recur user add ADDRESS, or set [auth] signup = true",
			"email", r.email)
		return
	} else if err != nil {
		r.log.Error("sign-in mail", "error", err)
		return
	}
	if r.web {
		if login, ok := a.mailedLink("/magic-links/login"); ok {
			link, _ := a.signLink(login, user.ID, "/", "")
			loc := a.locale(ctx, user.ID)
			a.send(linkMail(user.Email, loc.T("Sign in to Recur"), loc.T("Open this link to sign in to Recur"), link,
				loc.T("It works for 15 minutes. If you did not ask for it, ignore this mail.")))
			return
		}
		// A request's Host may be anyone's: without base_url no link is
		// mailed, and the code below works wherever the person opened Recur.
		r.log.Warn("sign-in link not mailed: [server] base_url is not set; mailing a code instead. " + baseURLFix)
	}
	code := digits(6)
	if err := a.opts.Store.CreateMailCode(ctx, user.ID, store.CodeSignIn, a.keys.mac(store.CodeSignIn, user.ID, code), MailCodeLifetime); err != nil {
		r.log.Error("sign-in mail", "user_id", user.ID, "error", err)
		return
	}
	loc := a.locale(ctx, user.ID)
	a.send(codeMail(loc, user.Email, loc.T("Your Recur sign-in code"), loc.T("Your code to sign in to Recur is:"), code))
}
