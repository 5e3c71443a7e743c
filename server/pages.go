package server

import (
	"context"
	"net/http"
	"unicode/utf8"
)

// Mount has every request outside /api served by pages (the web app), inside
// the same session, security-header, body-limit and cross-origin checks as
// the API. Call it once, before serving; without it those paths are 404.
func (s *Server) Mount(pages http.Handler) { s.pages = pages }

// SessionUser returns the id of the user signed in on the request's browser
// session, or "" when nobody is. Bearer tokens are not looked at: pages are
// for browsers, which sign in by session.
func (s *Server) SessionUser(r *http.Request) string {
	return s.sessions.GetString(r.Context(), sessionUser)
}

// MailSignInLink asks for a sign-in link to be mailed to email, as POST
// /api/magic-links/mails does for a browser on this app: the address is
// normalised, the same limits apply, and known and unknown addresses do the
// same work. It returns an error whose message is a sentence for the person:
// a malformed address, or too many tries.
func (s *Server) MailSignInLink(ctx context.Context, email string) error {
	if utf8.RuneCountInString(email) > 255 {
		return invalid("email", "The email may not be longer than 255 characters.")
	}
	// The form is on this app's own page (a cross-origin post never gets
	// here), so the mail carries a link. The browser's Origin is "null"
	// under Referrer-Policy: no-referrer, so it cannot tell.
	return s.queueSignIn(ctx, email, true)
}

// SignOut ends the request's browser session.
func (s *Server) SignOut(ctx context.Context) error { return s.sessions.Destroy(ctx) }

// servePages answers every path the API and its documentation do not own.
func (s *Server) servePages(w http.ResponseWriter, r *http.Request) {
	if s.pages == nil {
		http.NotFound(w, r)
		return
	}
	s.pages.ServeHTTP(w, r)
}
