package web

import (
	_ "embed"
	"net/http"
	"slices"
	"strings"

	"golang.org/x/text/language"
	"golang.org/x/text/language/display"

	"github.com/recur-journal/recur/internal/i18n"
	"github.com/recur-journal/recur/store"
)

// timezoneList holds the zones the timezone select offers, one a line: UTC,
// then the IANA zones of zone1970.tab.
//
//go:embed timezones.txt
var timezoneList string

var timezones = strings.Fields(timezoneList)

// locales are the languages offered by the select: the pages and mails
// speak those of the catalogue (i18n.Languages), pattern descriptions all
// of them; any other tag set through the API is offered too.
var locales = []string{"en", "de", "es", "fr", "it", "nl", "pt", "pt-BR", "sv", "da", "nb", "fi", "pl", "cs", "tr", "ja", "ko", "zh"}

// option is one choice of a select; Spoken says the pages speak it too.
type option struct {
	Value, Label string
	Spoken       bool
}

type settingsData struct {
	Name       string
	Timezone   string
	TZUnset    bool // the default zone: the page offers the browser's
	Timezones  []string
	Locale     string
	Locales    []option
	Verified   bool
	Saved      bool
	Sent       bool   // a verification mail was asked for
	Error      string // the sentence of the field that failed
	ErrorField string // name, timezone or app_locale
}

// settings shows the account: name, timezone, language of descriptions and
// whether the address is verified.
func (a *App) settings(w http.ResponseWriter, r *http.Request) {
	v := viewerOf(r)
	locale, err := a.opts.Store.SettingValue(r.Context(), v.User.ID, store.SettingAppLocale)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.renderSettings(w, r, http.StatusOK, settingsData{Name: v.User.Name, Timezone: v.Loc.String(), Locale: locale,
		Saved: r.URL.Query().Get("saved") == "1", Sent: r.URL.Query().Get("sent") == "1"})
}

func (a *App) renderSettings(w http.ResponseWriter, r *http.Request, status int, d settingsData) {
	v := viewerOf(r)
	d.Verified = v.User.EmailVerifiedAt != nil
	d.TZUnset = d.Timezone == "UTC"
	d.Timezones = timezones
	if !slices.Contains(d.Timezones, d.Timezone) {
		d.Timezones = append([]string{d.Timezone}, timezones...)
	}
	d.Locales = localeOptions(d.Locale)
	a.render(w, r, status, "settings", page{Title: a.t(r, "Settings"), Nav: "settings", Data: d})
}

// localeOptions names each offered language in itself, current included.
func localeOptions(current string) []option {
	list := locales
	if !slices.Contains(list, current) {
		list = append([]string{current}, list...)
	}
	out := make([]option, len(list))
	for i, l := range list {
		label := l
		if tag, err := language.Parse(l); err == nil {
			if name := display.Self.Name(tag); name != "" {
				label = name + " (" + l + ")"
			}
		}
		base, _ := language.Make(l).Base()
		out[i] = option{Value: l, Label: label, Spoken: slices.Contains(i18n.Languages(), base.String())}
	}
	return out
}

// saveSettings sets the name, the timezone (patterns are counted again in
// it) and the language of descriptions (they are written again in it).
func (a *App) saveSettings(w http.ResponseWriter, r *http.Request) {
	v := viewerOf(r)
	ctx := r.Context()
	d := settingsData{Name: r.PostFormValue("name"), Timezone: r.PostFormValue("timezone"), Locale: r.PostFormValue("app_locale")}
	oldTZ, err := a.opts.Store.SettingValue(ctx, v.User.ID, store.SettingTimezone)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	oldLocale, err := a.opts.Store.SettingValue(ctx, v.User.ID, store.SettingAppLocale)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	invalid := func(field string, err error) {
		a.invalidForm(w, r, err, func(msg, _ string) {
			d.Error, d.ErrorField = a.locale(r).Sentence(msg), field
			a.renderSettings(w, r, http.StatusUnprocessableEntity, d)
		})
	}
	tz := &store.Setting{Key: store.SettingTimezone, Value: d.Timezone}
	if err := tz.Validate(); err != nil {
		invalid("timezone", err)
		return
	}
	locale := &store.Setting{Key: store.SettingAppLocale, Value: d.Locale}
	if err := locale.Validate(); err != nil {
		invalid("app_locale", err)
		return
	}
	if err := a.opts.Store.SetUserName(ctx, v.User.ID, d.Name); err != nil {
		invalid("name", err)
		return
	}
	for _, st := range []*store.Setting{tz, locale} {
		if err := a.opts.Store.PutSetting(ctx, v.User.ID, st); err != nil {
			a.fail(w, r, err)
			return
		}
	}
	if a.opts.Analyser != nil {
		if tz.Value != oldTZ {
			if err := a.opts.Analyser.Redetect(ctx, v.User.ID); err != nil {
				a.opts.Logger.ErrorContext(ctx, "detect after timezone change", "error", err)
			}
		}
		// The pipeline writes descriptions again in the new language.
		if rd, ok := a.opts.Analyser.(interface{ Redescribe(userID string) }); ok && locale.Value != oldLocale {
			rd.Redescribe(v.User.ID)
		}
	}
	http.Redirect(w, r, "/settings?saved=1", http.StatusSeeOther)
}

// resendVerification mails a link that verifies the address.
func (a *App) resendVerification(w http.ResponseWriter, r *http.Request) {
	if _, err := a.opts.Accounts.SendVerificationMail(r.Context(), caller(r)); err != nil {
		status, msg, ok := personalError(err)
		if !ok {
			a.fail(w, r, err)
			return
		}
		v := viewerOf(r)
		locale, _ := a.opts.Store.SettingValue(r.Context(), v.User.ID, store.SettingAppLocale)
		a.renderSettings(w, r, status, settingsData{Name: v.User.Name, Timezone: v.Loc.String(), Locale: locale,
			Error: msg, ErrorField: "verification"})
		return
	}
	http.Redirect(w, r, "/settings?sent=1", http.StatusSeeOther)
}
