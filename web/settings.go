package web

import (
	"net/http"

	"github.com/recur-journal/recur/store"
)

type settingsData struct {
	Timezone string
	Saved    bool
	Error    string
}

// settings shows the account and the timezone days are counted in.
func (a *App) settings(w http.ResponseWriter, r *http.Request) {
	a.render(w, r, http.StatusOK, "settings", page{Title: "Settings", Nav: "settings",
		Data: settingsData{Timezone: viewerOf(r).Loc.String(), Saved: r.URL.Query().Get("saved") == "1"}})
}

// saveSettings sets the timezone; patterns are counted again in it.
func (a *App) saveSettings(w http.ResponseWriter, r *http.Request) {
	v := viewerOf(r)
	tz := r.PostFormValue("timezone")
	err := a.opts.Store.PutSetting(r.Context(), v.User.ID, &store.Setting{Key: store.SettingTimezone, Value: tz})
	if err == nil {
		if a.opts.Analyser != nil {
			if err := a.opts.Analyser.Redetect(r.Context(), v.User.ID); err != nil {
				a.opts.Logger.ErrorContext(r.Context(), "detect after timezone change", "error", err)
			}
		}
		http.Redirect(w, r, "/settings?saved=1", http.StatusSeeOther)
		return
	}
	a.invalidForm(w, r, err, func(msg, _ string) {
		a.render(w, r, http.StatusUnprocessableEntity, "settings", page{Title: "Settings", Nav: "settings",
			Data: settingsData{Timezone: tz, Error: msg}})
	})
}
