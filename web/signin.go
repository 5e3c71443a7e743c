package web

import (
	"errors"
	"net/http"

	"github.com/recur-journal/recur/account"
	"github.com/recur-journal/recur/store"
)

// signinData is the sign-in page's state: which step it is at and the
// sentence of the form that failed.
type signinData struct {
	Step     string // "" (choose a way), "code" (enter the mailed code) or "two-factor"
	Email    string
	Sent     bool   // a sign-in link was asked for
	Error    string // the failed form's sentence
	Form     string // which form failed: link, code, password, two-factor
	MailLogs bool   // no SMTP: mail goes to the server's log
	NoLinks  bool   // no base_url: sign-in mail carries a code, never a link
}

// signinPage renders / for a browser nobody is signed in on. A session
// waiting for its second factor is at that step, whatever was asked.
func (a *App) signinPage(w http.ResponseWriter, r *http.Request, status int, d signinData) {
	if a.opts.Accounts.WaitsForSecondFactor(r.Context()) {
		d.Step = "two-factor"
	}
	d.MailLogs = a.opts.MailLogs
	d.NoLinks = a.opts.NoMailedLinks
	a.render(w, r, status, "signin", page{Title: a.t(r, "Sign in"), Data: d})
}

// personalError is the status and sentence of an error from the account's
// domain code meant for the person (bad input, a limit, a confirmation
// needed, not found); ok is false for anything else, a server error.
func personalError(err error) (status int, msg string, ok bool) {
	// 503 too: its sentence says what the server lacks (or that it is
	// stopping), for the person to know.
	var ae *account.Error
	if errors.As(err, &ae) && (ae.Status < 500 || ae.Status == http.StatusServiceUnavailable) {
		return ae.Status, ae.Message, true
	}
	// Some checks answer the store's own bad-input error (a recovery code
	// used already): its sentence is for the person too.
	var se *store.Error
	if errors.As(err, &se) && se.Code == store.EINVALID {
		return http.StatusUnprocessableEntity, se.Message, true
	}
	return 0, "", false
}

// signinFailed renders the sign-in page again with the form's sentence, or
// fails the request for an error not meant for the person.
func (a *App) signinFailed(w http.ResponseWriter, r *http.Request, err error, d signinData) {
	status, msg, ok := personalError(err)
	if !ok {
		a.fail(w, r, err)
		return
	}
	d.Error = a.locale(r).Sentence(msg)
	a.signinPage(w, r, status, d)
}

// signIn mails a sign-in link from the form on /, exactly as the API's
// POST /magic-links/mails does; the page says the same for every address.
func (a *App) signIn(w http.ResponseWriter, r *http.Request) {
	if a.opts.NoMailedLinks {
		// The server mails a code in place of a link: ask for it.
		a.mailCode(w, r)
		return
	}
	email := r.PostFormValue("email")
	if err := a.opts.Accounts.MailSignInLink(r.Context(), email); err != nil {
		a.signinFailed(w, r, err, signinData{Email: email, Form: "link"})
		return
	}
	a.signinPage(w, r, http.StatusOK, signinData{Sent: true})
}

// mailCode mails a sign-in code and asks for it.
func (a *App) mailCode(w http.ResponseWriter, r *http.Request) {
	email := r.PostFormValue("email")
	if err := a.opts.Accounts.MailSignInCode(r.Context(), email); err != nil {
		a.signinFailed(w, r, err, signinData{Email: email, Form: "code"})
		return
	}
	a.signinPage(w, r, http.StatusOK, signinData{Step: "code", Email: email})
}

// signInWithCode exchanges the mailed code for this browser's session.
func (a *App) signInWithCode(w http.ResponseWriter, r *http.Request) {
	email := r.PostFormValue("email")
	// With two-factor on, / shows the second-factor step next.
	_, err := a.opts.Accounts.SignInWithCode(r.Context(), email, r.PostFormValue("code"))
	if err != nil {
		a.signinFailed(w, r, err, signinData{Step: "code", Email: email, Form: "code"})
		return
	}
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// signInWithPassword signs in by address and password.
func (a *App) signInWithPassword(w http.ResponseWriter, r *http.Request) {
	email := r.PostFormValue("email")
	_, err := a.opts.Accounts.SignInWithPassword(r.Context(), email, r.PostFormValue("password"), r.PostFormValue("remember") == "on")
	if err != nil {
		a.signinFailed(w, r, err, signinData{Email: email, Form: "password"})
		return
	}
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// secondFactor takes the authenticator's code or a recovery code.
func (a *App) secondFactor(w http.ResponseWriter, r *http.Request) {
	err := a.opts.Accounts.SignInSecondFactor(r.Context(), r.PostFormValue("code"), r.PostFormValue("recovery_code"))
	if err != nil {
		a.signinFailed(w, r, err, signinData{Form: "two-factor"})
		return
	}
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// signOut ends the browser session and goes back to the sign-in page.
func (a *App) signOut(w http.ResponseWriter, r *http.Request) {
	if err := a.opts.Accounts.SignOut(r.Context()); err != nil {
		a.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/", http.StatusSeeOther)
}
