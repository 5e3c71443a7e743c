package server

import (
	"context"
	"time"

	"github.com/recur-journal/recur/store"
)

// The sign-in mail workers: POST /magic-links/mails only validates and
// rate-limits on the request path, then hands the address here. Looking
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
	log   context.Context
}

// Start runs the background workers of the API (sign-in mail). Stop ends them.
func (s *Server) Start() {
	for range signInWorkers {
		s.workers.Add(1)
		go func() {
			defer s.workers.Done()
			for {
				select {
				case r := <-s.signIns:
					s.mailSignIn(r)
				case <-s.stopping:
					// Drain what was asked for before the HTTP server stopped.
					for {
						select {
						case r := <-s.signIns:
							s.mailSignIn(r)
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
func (s *Server) Stop() {
	s.stopOnce.Do(func() { close(s.stopping) })
	s.workers.Wait()
}

// askSignIn hands a sign-in mail to the workers. A full queue makes the
// request wait, for known and unknown addresses alike, never drops it.
func (s *Server) askSignIn(ctx context.Context, r signInRequest) error {
	r.log = context.WithValue(context.Background(), loggerKey{}, logger(ctx))
	select {
	case s.signIns <- r:
		return nil
	case <-s.stopping:
		return &apiError{status: 503, Message: "The server is shutting down. Try again in a moment."}
	case <-ctx.Done():
		return ctx.Err()
	}
}

// mailSignIn finds (or, with sign-up on, makes) the account and mails it a
// link or a code. An unknown address gets nothing.
func (s *Server) mailSignIn(r signInRequest) {
	ctx, cancel := context.WithTimeout(r.log, signInTimeout)
	defer cancel()
	user, err := s.opts.Store.FindUserByEmail(ctx, r.email)
	if store.ErrorCode(err) == store.ENOTFOUND && s.opts.Signup {
		user = &store.User{Email: r.email}
		err = s.opts.Store.CreateUser(ctx, user)
	}
	if store.ErrorCode(err) == store.ENOTFOUND {
		// Only the owner reads this: the answer was given already, the same
		// for every address.
		logger(ctx).Info("sign-in mail not sent: no account has this address; add it with recur user add ADDRESS, or set [auth] signup = true",
			"email", r.email)
		return
	} else if err != nil {
		logger(ctx).Error("sign-in mail", "error", err)
		return
	}
	if r.web {
		if login, ok := s.mailedLink("/magic-links/login"); ok {
			link, _ := s.magicLink(login, user.ID, "/", "")
			s.send(linkMail(user.Email, "Sign in to Recur", "sign in to Recur", link.URL, "15 minutes"))
			return
		}
		// A request's Host may be anyone's: without base_url no link is
		// mailed, and the code below works wherever the person opened Recur.
		logger(ctx).Warn("sign-in link not mailed: [server] base_url is not set; mailing a code instead. " + baseURLFix)
	}
	code := digits(6)
	if err := s.opts.Store.CreateMailCode(ctx, user.ID, store.CodeSignIn, s.keys.mac(store.CodeSignIn, user.ID, code), MailCodeLifetime); err != nil {
		logger(ctx).Error("sign-in mail", "user_id", user.ID, "error", err)
		return
	}
	s.send(codeMail(user.Email, "Your Recur sign-in code", "sign in to Recur", code))
}
