package web

import (
	"net/http"
	"slices"

	"github.com/recur-journal/recur/account"
	"github.com/recur-journal/recur/internal/i18n"
	"github.com/recur-journal/recur/store"
)

// defaultAppScopes are ticked on the form for a new app, as the API gives
// an app registered without scopes: enough for a shortcut that posts
// entries, and nothing more.
var defaultAppScopes = []string{string(account.ScopeCapturesWrite)}

// scopeChoice is one checkbox of the scopes an app may carry.
type scopeChoice struct {
	Name, Description string
	Checked           bool
}

// appRow is an app as the list shows it, with its own form.
type appRow struct {
	ID, Name string
	Scopes   []scopeChoice // every scope, those the app carries ticked
	Carries  []string
	LastUsed string
	Error    string // the sentence of a change refused
	Field    string // the field it is about: name or scopes
}

type appsData struct {
	Apps []appRow
	// The form for a new app, filled in again when it was refused.
	Name   string
	Scopes []scopeChoice
	Error  string
	Field  string
	// Created is the app just registered and Token its token, shown this once.
	Created string
	Token   string
	Notice  string
}

// scopeChoices lists every scope, and "*" last, with those in ticked.
func scopeChoices(ticked []string) []scopeChoice {
	out := make([]scopeChoice, 0, len(account.Scopes)+1)
	for _, s := range account.Scopes {
		if store.OwnerScope(string(s.Name)) {
			continue // granted at the command line alone
		}
		out = append(out, scopeChoice{Name: string(s.Name), Description: s.Description, Checked: slices.Contains(ticked, string(s.Name))})
	}
	return append(out, scopeChoice{Name: string(account.ScopeAll), Description: i18n.Key("Everything, including scopes added in later versions, except reading the server's metrics."),
		Checked: slices.Contains(ticked, string(account.ScopeAll))})
}

// formScopes are the scopes ticked on a form. An unknown one is EINVALID
// under scopes with the same sentence the API gives; none at all is left to
// the store's rule. A session may grant any scope, so nothing else is
// checked: the no-escalation rule only limits tokens.
func formScopes(r *http.Request) ([]string, error) {
	scopes := r.PostForm["scopes"]
	for _, sc := range scopes {
		if !account.KnownScope(sc) {
			return nil, store.Invalid("scopes", "%s", account.UnknownScope(sc))
		}
	}
	return scopes, nil
}

// apps lists the user's apps with a form to register another.
func (a *App) apps(w http.ResponseWriter, r *http.Request) {
	d := appsData{Scopes: scopeChoices(defaultAppScopes)}
	switch r.URL.Query().Get("done") {
	case "saved":
		d.Notice = i18n.Key("Saved. The app's token carries the new scopes from its next request on.")
	case "deleted":
		d.Notice = i18n.Key("The app is removed; its token no longer works.")
	}
	a.renderApps(w, r, http.StatusOK, d, nil)
}

// renderApps shows the apps page with d; rowErr, when set, is drawn with
// the app it is about.
func (a *App) renderApps(w http.ResponseWriter, r *http.Request, status int, d appsData, rowErr *appRow) {
	v := viewerOf(r)
	list, _, err := a.opts.Store.ListApps(r.Context(), v.User.ID, store.Page{Page: 1, Limit: 100})
	if err != nil {
		a.fail(w, r, err)
		return
	}
	d.Apps = make([]appRow, len(list))
	for i, app := range list {
		row := appRow{ID: app.ID, Name: app.Name, Scopes: scopeChoices(app.Scopes), Carries: app.Scopes, LastUsed: v.Lang.T("Never used")}
		if app.LastUsedAt != nil {
			row.LastUsed = v.Lang.T("Last used %s", v.Lang.Date(app.LastUsedAt.In(v.Loc), i18n.DateTime))
		}
		if rowErr != nil && rowErr.ID == app.ID {
			row.Name, row.Scopes, row.Error, row.Field = rowErr.Name, rowErr.Scopes, rowErr.Error, rowErr.Field
		}
		d.Apps[i] = row
	}
	a.render(w, r, status, "settings_apps", page{Title: a.t(r, "Apps"), Nav: "settings", Data: d})
}

// createApp registers an app and shows its token, this once: the answer is
// a page, not a redirect, so the token is never in a URL or a history entry
// that could be loaded again.
func (a *App) createApp(w http.ResponseWriter, r *http.Request) {
	r.ParseForm()
	name := r.PostFormValue("name")
	scopes, err := formScopes(r)
	var token string
	app := store.App{UserID: viewerOf(r).User.ID, Name: name, Scopes: scopes}
	if err == nil {
		token, err = a.opts.Store.CreateApp(r.Context(), &app)
	}
	if err != nil {
		a.invalidForm(w, r, err, func(msg, field string) {
			a.renderApps(w, r, http.StatusUnprocessableEntity,
				appsData{Name: name, Scopes: scopeChoices(r.PostForm["scopes"]), Error: msg, Field: field}, nil)
		})
		return
	}
	a.renderApps(w, r, http.StatusCreated, appsData{Scopes: scopeChoices(defaultAppScopes), Created: app.Name, Token: token}, nil)
}

// updateApp renames an app and sets its scopes, as one form does both.
func (a *App) updateApp(w http.ResponseWriter, r *http.Request) {
	r.ParseForm()
	id := r.PathValue("id")
	name := r.PostFormValue("name")
	uid := viewerOf(r).User.ID
	// Another person's app is 404 whatever the form holds.
	if _, err := a.opts.Store.FindApp(r.Context(), uid, id); err != nil {
		a.fail(w, r, err)
		return
	}
	scopes, err := formScopes(r)
	if err == nil {
		_, err = a.opts.Store.UpdateApp(r.Context(), uid, id, store.AppUpdate{Name: &name, Scopes: &scopes})
	}
	if err != nil {
		a.invalidForm(w, r, err, func(msg, field string) {
			a.renderApps(w, r, http.StatusUnprocessableEntity, appsData{Scopes: scopeChoices(defaultAppScopes)},
				&appRow{ID: id, Name: name, Scopes: scopeChoices(r.PostForm["scopes"]), Error: msg, Field: field})
		})
		return
	}
	http.Redirect(w, r, "/settings/apps?done=saved", http.StatusSeeOther)
}

// deleteApp removes an app and revokes its token, once confirmed.
func (a *App) deleteApp(w http.ResponseWriter, r *http.Request) {
	if r.PostFormValue("confirm") != "yes" {
		a.fail(w, r, store.Invalid("confirm", "%s", i18n.Key("Confirm that the app should be removed: its token stops working at once.")))
		return
	}
	if err := a.opts.Store.DeleteApp(r.Context(), viewerOf(r).User.ID, r.PathValue("id")); err != nil {
		a.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/settings/apps?done=deleted", http.StatusSeeOther)
}
