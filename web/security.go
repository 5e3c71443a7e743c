package web

import (
	"html/template"
	"net/http"
	"strings"
	"time"

	"github.com/recur-journal/recur/account"
	"github.com/recur-journal/recur/internal/i18n"
	"github.com/recur-journal/recur/store"
)

// credentialRow is a signed-in browser or a token as the page lists it,
// its times in the viewer's zone.
type credentialRow struct {
	ID, Name, Detail  string
	Current           bool
	LastUsed, Expires string
}

// when writes t in loc to the minute in lang's words, or never for nil.
func when(lang *i18n.Locale, t *time.Time, loc *time.Location) string {
	if t == nil {
		return lang.T("never")
	}
	return lang.Date(t.In(loc), i18n.ShortDateTime)
}

// caller is the signed-in person of a page as the account rules see them:
// on this browser session.
func caller(r *http.Request) *account.Caller { return &account.Caller{User: viewerOf(r).User} }

// allOfThem is the one page of sessions or tokens the security page lists.
var allOfThem = store.Page{Page: 1, Limit: 1000}

// securityData is the security page: what the account has, and the step of
// the action under way.
type securityData struct {
	HasPassword bool
	TwoFactor   bool
	Confirmed   bool
	// Confirm is set when an action needs the session confirmed first
	// (the API's 423): the page asks for the password or a mailed code.
	Confirm  bool
	CodeSent bool
	// Next is the action that asked for the confirmation (a key of
	// resumable), which the page goes on with once it is given.
	Next     string
	Open     string // the confirming <details> to show open: delete or two-factor-off
	Setup    *account.TwoFactorSetup
	QR       template.HTML // the setup's QR code, an SVG made by the server
	Recovery []string      // recovery codes, shown this once
	Sessions []credentialRow
	Tokens   []credentialRow
	Notice   string
	Error    string
	Form     string // the form the notice or error belongs to
}

// note is the notice or error of one form of the page.
type note struct{ Notice, Error string }

// formNote is d's notice or error when it belongs to form.
func formNote(d securityData, form string) note {
	if d.Form != form {
		return note{}
	}
	return note{Notice: d.Notice, Error: d.Error}
}

func (a *App) securityRoutes() {
	a.mux.HandleFunc("GET /settings/security", a.signedIn(a.security))
	a.mux.HandleFunc("POST /settings/security/confirm", a.signedIn(a.confirmSession))
	a.mux.HandleFunc("POST /settings/security/confirm/code", a.signedIn(a.mailConfirmationCode))
	a.mux.HandleFunc("POST /settings/security/password", a.signedIn(a.setPassword))
	a.mux.HandleFunc("POST /settings/security/two-factor", a.signedIn(a.startTwoFactor))
	a.mux.HandleFunc("POST /settings/security/two-factor/confirm", a.signedIn(a.confirmTwoFactor))
	a.mux.HandleFunc("POST /settings/security/two-factor/recovery-codes", a.signedIn(a.newRecoveryCodes))
	a.mux.HandleFunc("POST /settings/security/two-factor/disable", a.signedIn(a.disableTwoFactor))
	a.mux.HandleFunc("POST /settings/security/recovery-codes.txt", a.signedIn(a.downloadRecoveryCodes))
	a.mux.HandleFunc("POST /settings/security/sessions/{id}/delete", a.signedIn(a.endSession))
	a.mux.HandleFunc("POST /settings/security/sessions/delete", a.signedIn(a.endOtherSessions))
	a.mux.HandleFunc("POST /settings/security/tokens/{id}/delete", a.signedIn(a.revokeToken))
	a.mux.HandleFunc("POST /settings/security/account/delete", a.signedIn(a.deleteAccount))
	a.mux.HandleFunc("GET /goodbye", a.goodbye)
	// The actions' addresses answer a reload or a typed address with the
	// page, never 404.
	a.mux.HandleFunc("GET /settings/security/", a.signedIn(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/settings/security", http.StatusSeeOther)
	}))
}

// resumable names the actions that may ask to confirm it is you first, by
// the address of their form: once confirmed, the page goes on with the
// action (see confirmSession).
var resumable = map[string]string{
	"/settings/security/two-factor":                "two-factor",
	"/settings/security/two-factor/recovery-codes": "recovery-codes",
	"/settings/security/two-factor/disable":        "two-factor-off",
	"/settings/security/password":                  "password",
	"/settings/security/account/delete":            "delete",
}

// nextOf is the resumable action a form names, or "".
func nextOf(r *http.Request) string {
	next := r.FormValue("next")
	for _, v := range resumable {
		if v == next {
			return next
		}
	}
	return ""
}

func (a *App) security(w http.ResponseWriter, r *http.Request) {
	d := securityData{}
	switch r.URL.Query().Get("done") {
	case "password":
		d.Notice, d.Form = i18n.Key("The password is saved. Every other browser is signed out, and every token but your apps' is revoked."), "password"
	case "confirmed":
		d.Notice, d.Form = i18n.Key("The session is confirmed for 15 minutes."), "confirm"
		switch nextOf(r) {
		case "password":
			d.Notice, d.Form = i18n.Key("Confirmed for 15 minutes: set the password now."), "password"
		case "two-factor-off":
			d.Notice, d.Form, d.Open = i18n.Key("Confirmed for 15 minutes: press Turn off to turn two-factor sign-in off."), "two-factor", "two-factor-off"
		case "delete":
			d.Notice, d.Form, d.Open = i18n.Key("Confirmed for 15 minutes: press Delete my account for good to delete it."), "delete", "delete"
		}
	case "two-factor-off":
		d.Notice, d.Form = i18n.Key("Two-factor sign-in is off."), "two-factor"
	case "signed-out":
		d.Notice, d.Form = i18n.Key("Every other browser is signed out."), "sessions"
	case "session":
		d.Notice, d.Form = i18n.Key("That browser is signed out."), "sessions"
	case "token":
		d.Notice, d.Form = i18n.Key("The token is revoked."), "tokens"
	}
	if r.URL.Query().Get("step") == "code" {
		d = securityData{Confirm: true, CodeSent: true, Form: "confirm", Next: nextOf(r)}
	}
	a.renderSecurity(w, r, http.StatusOK, d)
}

// renderSecurity fills in the account's state and renders the page.
func (a *App) renderSecurity(w http.ResponseWriter, r *http.Request, status int, d securityData) {
	ctx := r.Context()
	// The user as it is now: an action may just have changed it.
	u, err := a.opts.Store.FindUserByID(ctx, viewerOf(r).User.ID)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	d.HasPassword, d.TwoFactor = u.PasswordHash != "", u.TwoFactor()
	d.Confirmed = a.opts.Accounts.Confirmed(ctx, caller(r))
	sessions, _, err := a.opts.Accounts.BrowserSessions(ctx, caller(r), allOfThem)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	loc := viewerOf(r).Loc
	for _, ss := range sessions {
		d.Sessions = append(d.Sessions, credentialRow{ID: ss.ID, Name: ss.Name, Detail: ss.IP, Current: ss.Current,
			LastUsed: when(viewerOf(r).Lang, &ss.LastUsedAt, loc), Expires: when(viewerOf(r).Lang, &ss.ExpiresAt, loc)})
	}
	tokens, _, err := a.opts.Accounts.Tokens(ctx, caller(r), allOfThem)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	for _, t := range tokens {
		detail := strings.Join(t.Scopes, ", ")
		if t.App {
			detail = "app · " + detail
		}
		d.Tokens = append(d.Tokens, credentialRow{ID: t.ID, Name: t.Name, Detail: detail, Current: t.Current,
			LastUsed: when(viewerOf(r).Lang, t.LastUsedAt, loc), Expires: when(viewerOf(r).Lang, t.ExpiresAt, loc)})
	}
	if d.Setup != nil {
		d.QR = template.HTML(d.Setup.QRCodeSVG) // made by the server from the otpauth URL, not from input
	}
	a.render(w, r, status, "security", page{Title: a.t(r, "Security"), Nav: "settings", Data: d})
}

// act runs an action of the security page: on success it goes to done (a
// ?done= value of GET /settings/security); a 423 shows the confirm step;
// any other error meant for the person shows its sentence at form.
func (a *App) act(w http.ResponseWriter, r *http.Request, form, done string, err error) {
	if err == nil {
		http.Redirect(w, r, "/settings/security?done="+done, http.StatusSeeOther)
		return
	}
	status, msg, ok := personalError(err)
	if !ok {
		a.fail(w, r, err)
		return
	}
	d := securityData{Error: msg, Form: form}
	if status == http.StatusLocked {
		d = securityData{Confirm: true, Form: "confirm", Next: resumable[r.URL.Path],
			Error: i18n.Key("Confirm it is you first (with your password or a mailed code); then the page goes on.")}
	}
	a.renderSecurity(w, r, status, d)
}

// confirmSession confirms the session by password or mailed code, then goes
// on with the action that asked for it: setting up two-factor or making
// new recovery codes at once, the others back at their form.
func (a *App) confirmSession(w http.ResponseWriter, r *http.Request) {
	var err error
	code := r.PostFormValue("code")
	if code != "" {
		err = a.opts.Accounts.ConfirmWithCode(r.Context(), caller(r), code)
	} else {
		err = a.opts.Accounts.ConfirmWithPassword(r.Context(), caller(r), r.PostFormValue("password"))
	}
	next := nextOf(r)
	if err != nil {
		if status, msg, ok := personalError(err); ok {
			a.renderSecurity(w, r, status, securityData{Confirm: true, Error: msg, Form: "confirm", CodeSent: code != "", Next: next})
			return
		}
		a.fail(w, r, err)
		return
	}
	switch next {
	case "two-factor":
		a.startTwoFactor(w, r)
	case "recovery-codes":
		a.newRecoveryCodes(w, r)
	case "":
		a.act(w, r, "confirm", "confirmed", nil)
	default:
		http.Redirect(w, r, "/settings/security?done=confirmed&next="+next+"#"+map[string]string{
			"password": "password", "two-factor-off": "two-factor", "delete": "delete"}[next], http.StatusSeeOther)
	}
}

// mailConfirmationCode mails a code and goes to the step that asks for it,
// an address of its own, so that a reload shows it again and mails nothing.
func (a *App) mailConfirmationCode(w http.ResponseWriter, r *http.Request) {
	if err := a.opts.Accounts.MailConfirmationCode(r.Context(), caller(r)); err != nil {
		a.act(w, r, "confirm", "", err)
		return
	}
	to := "/settings/security?step=code"
	if next := nextOf(r); next != "" {
		to += "&next=" + next
	}
	http.Redirect(w, r, to+"#confirm", http.StatusSeeOther)
}

func (a *App) setPassword(w http.ResponseWriter, r *http.Request) {
	pw := r.PostFormValue("password")
	if pw != r.PostFormValue("password_confirmation") {
		a.renderSecurity(w, r, http.StatusUnprocessableEntity, securityData{Form: "password", Error: i18n.Key("The two passwords do not match.")})
		return
	}
	a.act(w, r, "password", "password", a.opts.Accounts.SetPassword(r.Context(), caller(r), pw))
}

func (a *App) startTwoFactor(w http.ResponseWriter, r *http.Request) {
	setup, err := a.opts.Accounts.StartTwoFactor(r.Context(), caller(r))
	if err != nil {
		a.act(w, r, "two-factor", "", err)
		return
	}
	a.renderSecurity(w, r, http.StatusOK, securityData{Setup: &setup, Form: "two-factor"})
}

func (a *App) confirmTwoFactor(w http.ResponseWriter, r *http.Request) {
	codes, err := a.opts.Accounts.ConfirmTwoFactor(r.Context(), caller(r), r.PostFormValue("code"))
	if err != nil {
		a.act(w, r, "two-factor-code", "", err)
		return
	}
	a.renderSecurity(w, r, http.StatusOK, securityData{Recovery: codes, Form: "two-factor",
		Notice: i18n.Key("Two-factor sign-in is on.")})
}

func (a *App) newRecoveryCodes(w http.ResponseWriter, r *http.Request) {
	codes, err := a.opts.Accounts.NewRecoveryCodes(r.Context(), caller(r))
	if err != nil {
		a.act(w, r, "two-factor", "", err)
		return
	}
	a.renderSecurity(w, r, http.StatusOK, securityData{Recovery: codes, Form: "two-factor",
		Notice: i18n.Key("New recovery codes: the old ones no longer work.")})
}

func (a *App) disableTwoFactor(w http.ResponseWriter, r *http.Request) {
	a.act(w, r, "two-factor", "two-factor-off", a.opts.Accounts.DisableTwoFactor(r.Context(), caller(r)))
}

// downloadRecoveryCodes answers the codes the page just showed as a text
// file: the page posts them back, so the server keeps no copy to send.
func (a *App) downloadRecoveryCodes(w http.ResponseWriter, r *http.Request) {
	var b strings.Builder
	b.WriteString("Recur recovery codes for " + viewerOf(r).User.Email + "\nEach works once, in place of the authenticator's code.\n\n")
	for _, c := range r.PostForm["code"] {
		if len(c) <= 16 && strings.Trim(c, "abcdefghijklmnopqrstuvwxyz0123456789-") == "" {
			b.WriteString(c + "\n")
		}
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="recur-recovery-codes.txt"`)
	w.Header().Set("Cache-Control", "no-store")
	w.Write([]byte(b.String()))
}

func (a *App) endSession(w http.ResponseWriter, r *http.Request) {
	a.act(w, r, "sessions", "session", a.opts.Accounts.EndBrowserSession(r.Context(), caller(r), r.PathValue("id")))
}

func (a *App) endOtherSessions(w http.ResponseWriter, r *http.Request) {
	a.act(w, r, "sessions", "signed-out", a.opts.Accounts.EndOtherBrowserSessions(r.Context(), caller(r)))
}

func (a *App) revokeToken(w http.ResponseWriter, r *http.Request) {
	a.act(w, r, "tokens", "token", a.opts.Accounts.RevokeToken(r.Context(), caller(r), r.PathValue("id")))
}

// deleteAccount removes the account for good, after the confirming button,
// and ends at the signed-out page that says it is done.
func (a *App) deleteAccount(w http.ResponseWriter, r *http.Request) {
	if r.PostFormValue("confirm") != "yes" {
		a.renderSecurity(w, r, http.StatusUnprocessableEntity, securityData{Form: "delete",
			Error: i18n.Key("Press the button that says Delete my account for good to delete it.")})
		return
	}
	if err := a.opts.Accounts.DeleteAccount(r.Context(), caller(r)); err != nil {
		a.act(w, r, "delete", "", err)
		return
	}
	http.Redirect(w, r, "/goodbye", http.StatusSeeOther)
}

// goodbye is the signed-out page after an account was deleted.
func (a *App) goodbye(w http.ResponseWriter, r *http.Request) {
	a.render(w, r, http.StatusOK, "goodbye", page{Title: a.t(r, "Account deleted")})
}
