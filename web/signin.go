package web

import (
	"errors"
	"net/http"
)

type signinData struct {
	Email string
	Sent  bool
	Error string
}

// signIn mails a sign-in link from the form on /, exactly as the API's
// POST /magic-links/mails does; the page says the same for every address.
func (a *App) signIn(w http.ResponseWriter, r *http.Request) {
	email := r.PostFormValue("email")
	err := a.opts.Accounts.MailSignInLink(r.Context(), email)
	if err == nil {
		a.render(w, r, http.StatusOK, "signin", page{Title: "Sign in", Data: signinData{Sent: true}})
		return
	}
	status := http.StatusUnprocessableEntity
	var se interface{ GetStatus() int }
	if errors.As(err, &se) {
		status = se.GetStatus()
	}
	if status >= 500 {
		a.fail(w, r, err)
		return
	}
	a.render(w, r, status, "signin", page{Title: "Sign in", Data: signinData{Email: email, Error: err.Error()}})
}

// signOut ends the browser session and goes back to the sign-in page.
func (a *App) signOut(w http.ResponseWriter, r *http.Request) {
	if err := a.opts.Accounts.SignOut(r.Context()); err != nil {
		a.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/", http.StatusSeeOther)
}
