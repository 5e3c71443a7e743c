package web

import (
	"net/http"
	"slices"
	"strings"

	"github.com/recur-journal/recur/internal/i18n"
	"github.com/recur-journal/recur/notify"
	"github.com/recur-journal/recur/store"
)

// channelKinds are every kind of channel, as the settings page lists them.
var channelKinds = []string{store.ChannelWebhook, store.ChannelNtfy, store.ChannelMail, store.ChannelWebPush}

// eventWords say each event type as the settings page offers it, after
// "Tell me when"; the API and webhooks name them by type.
var eventWords = map[string]string{
	notify.CaptureProcessed: i18n.Key("an entry was read"),
	notify.CaptureFailed:    i18n.Key("an entry could not be read"),
	notify.PatternDetected:  i18n.Key("a pattern shows up"),
	notify.PatternUrgent:    i18n.Key("a pattern turns urgent"),
	notify.PatternReopened:  i18n.Key("a pattern comes back"),
	notify.PatternClosed:    i18n.Key("a pattern goes quiet"),
	notify.ReviewReady:      i18n.Key("the weekly review is ready"),
	notify.Reminder:         i18n.Key("it is time to write"),
}

// kindWords say each kind of channel as the settings page lists it.
var kindWords = map[string]string{
	store.ChannelWebhook: i18n.Key("Webhook"), store.ChannelNtfy: "ntfy",
	store.ChannelMail: i18n.Key("Mail"), store.ChannelWebPush: i18n.Key("Push"),
}

// wordsFor is words[key], or key where words has none.
func wordsFor(words map[string]string, key string) string {
	if w, ok := words[key]; ok {
		return w
	}
	return key
}

// eventChoice is one checkbox of the events a channel may ask for.
type eventChoice struct {
	Name, Words string
	Checked     bool
}

// channelRow is a channel as the settings page lists it.
type channelRow struct {
	ID, Kind, Where string
	KindWords       string
	Events          []string // in words
	LastState       string   // of its latest delivery; empty before any
	LastError       string
}

type notificationsData struct {
	Channels []channelRow
	Events   []eventChoice
	// Kind, URL and Error refill the form for a new channel when it was refused.
	Kind, URL   string
	Error       string
	Field       string
	Secret      string // a new webhook's secret, shown this once
	Notice      string
	DailyAt     string
	Weekday     string
	Weekdays    []string
	ThisWeek    string
	Allowed     bool // the owner allows private targets
	ScheduleErr string
	// VAPIDKey is the server's Web Push key, with which the page's script
	// subscribes this device; empty when the server cannot make one.
	VAPIDKey string
}

func (a *App) notificationRoutes() {
	a.mux.HandleFunc("GET /settings/notifications", a.signedIn(a.notifications))
	a.mux.HandleFunc("POST /settings/notifications", a.signedIn(a.createNotificationChannel))
	a.mux.HandleFunc("POST /settings/notifications/schedule", a.signedIn(a.saveNotificationSchedule))
	a.mux.HandleFunc("POST /settings/notifications/{id}/test", a.signedIn(a.testNotificationChannel))
	a.mux.HandleFunc("POST /settings/notifications/{id}/delete", a.signedIn(a.deleteNotificationChannel))
}

func eventChoices(ticked []string) []eventChoice {
	out := make([]eventChoice, len(notify.EventTypes))
	for i, e := range notify.EventTypes {
		out[i] = eventChoice{Name: e, Words: wordsFor(eventWords, e), Checked: slices.Contains(ticked, e)}
	}
	return out
}

// notifications shows the user's channels, the form to add one, and the
// reminder and review schedule.
func (a *App) notifications(w http.ResponseWriter, r *http.Request) {
	d := notificationsData{Kind: store.ChannelNtfy, Events: eventChoices([]string{notify.PatternDetected, notify.PatternUrgent, notify.Reminder, notify.ReviewReady})}
	d.Notice = map[string]string{"test": i18n.Key("A test notification is on its way; the list shows how it went."), "deleted": i18n.Key("The channel is removed."),
		"saved": i18n.Key("Saved."), "added": i18n.Key("The channel is added."), "push": i18n.Key("Notifications are on for this device.")}[r.URL.Query().Get("done")]
	a.renderNotifications(w, r, http.StatusOK, d)
}

func (a *App) renderNotifications(w http.ResponseWriter, r *http.Request, status int, d notificationsData) {
	v := viewerOf(r)
	ctx := r.Context()
	list, _, err := a.opts.Store.ListChannels(ctx, v.User.ID, channelKinds, store.Page{Page: 1, Limit: notify.MaxChannels})
	if err != nil {
		a.fail(w, r, err)
		return
	}
	for _, c := range list {
		row := channelRow{ID: c.ID, Kind: c.Kind, KindWords: wordsFor(kindWords, c.Kind), Where: c.URL}
		for _, e := range c.Events {
			row.Events = append(row.Events, wordsFor(eventWords, e))
		}
		switch c.Kind {
		case store.ChannelMail:
			row.Where = v.User.Email
		case store.ChannelWebPush:
			row.Where = pushHost(c.URL)
		}
		if last, _, err := a.opts.Store.ListDeliveries(ctx, v.User.ID, channelKinds, c.ID, store.Page{Page: 1, Limit: 1}); err == nil && len(last) > 0 {
			row.LastState, row.LastError = last[0].State, last[0].LastError
		}
		d.Channels = append(d.Channels, row)
	}
	if s, err := a.opts.Store.FindSchedule(ctx, v.User.ID, store.ScheduleReminder); err == nil && d.DailyAt == "" {
		d.DailyAt = s.At
	}
	if s, err := a.opts.Store.FindSchedule(ctx, v.User.ID, store.ScheduleReview); err == nil && d.Weekday == "" {
		d.Weekday = s.At
	}
	if k, err := a.opts.Notifier.VAPIDPublicKey(); err == nil {
		d.VAPIDKey = k
	}
	d.Weekdays = []string{"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}
	d.ThisWeek = notify.WeekOf(a.opts.Store.Now().In(v.Loc))
	a.render(w, r, status, "settings_notifications", page{Title: a.t(r, "Notifications"), Nav: "settings", Data: d})
}

// createNotificationChannel adds a webhook, ntfy topic or mail channel. A
// new webhook's secret is shown on the answer, once.
func (a *App) createNotificationChannel(w http.ResponseWriter, r *http.Request) {
	r.ParseForm()
	uid := viewerOf(r).User.ID
	kind, url, events := r.PostFormValue("kind"), strings.TrimSpace(r.PostFormValue("url")), r.PostForm["events"]
	var secret string
	var err error
	if kind == store.ChannelWebhook {
		var hook *notify.NewWebhook
		if hook, err = a.opts.Notifier.CreateWebhook(r.Context(), uid, url, events, nil); err == nil {
			secret = hook.Secret
		}
	} else {
		_, err = a.opts.Notifier.CreateChannel(r.Context(), uid, kind, url, r.PostFormValue("token"), events)
	}
	if err != nil {
		a.invalidForm(w, r, err, func(msg, field string) {
			a.renderNotifications(w, r, http.StatusUnprocessableEntity, notificationsData{Kind: kind, URL: url, Events: eventChoices(events), Error: msg, Field: field})
		})
		return
	}
	if secret == "" {
		http.Redirect(w, r, "/settings/notifications?done=added", http.StatusSeeOther)
		return
	}
	a.renderNotifications(w, r, http.StatusCreated, notificationsData{Kind: store.ChannelNtfy, Events: eventChoices(nil), Secret: secret})
}

// saveNotificationSchedule sets the daily reminder and the review's weekday
// (empty turns either off).
func (a *App) saveNotificationSchedule(w http.ResponseWriter, r *http.Request) {
	r.ParseForm()
	uid := viewerOf(r).User.ID
	var at, day *string
	if v := r.PostFormValue("daily_at"); v != "" {
		at = &v
	}
	if v := r.PostFormValue("weekday"); v != "" {
		day = &v
	}
	err := a.opts.Notifier.SetReminder(r.Context(), uid, at)
	if err == nil {
		err = a.opts.Notifier.SetReviewDay(r.Context(), uid, day)
	}
	if err != nil {
		a.invalidForm(w, r, err, func(msg, field string) {
			a.renderNotifications(w, r, http.StatusUnprocessableEntity, notificationsData{Kind: store.ChannelNtfy, Events: eventChoices(nil),
				ScheduleErr: msg, DailyAt: r.PostFormValue("daily_at"), Weekday: r.PostFormValue("weekday")})
		})
		return
	}
	http.Redirect(w, r, "/settings/notifications?done=saved", http.StatusSeeOther)
}

// testNotificationChannel sends a test notification to one channel.
func (a *App) testNotificationChannel(w http.ResponseWriter, r *http.Request) {
	if err := a.opts.Notifier.SendTest(r.Context(), viewerOf(r).User.ID, channelKinds, r.PathValue("id")); err != nil {
		a.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/settings/notifications?done=test", http.StatusSeeOther)
}

// deleteNotificationChannel removes a channel.
func (a *App) deleteNotificationChannel(w http.ResponseWriter, r *http.Request) {
	if err := a.opts.Store.DeleteChannel(r.Context(), viewerOf(r).User.ID, channelKinds, r.PathValue("id")); err != nil {
		a.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/settings/notifications?done=deleted", http.StatusSeeOther)
}

// pushHost names a push subscription by its push service's host (the rest
// of the endpoint is a long opaque path).
func pushHost(endpoint string) string {
	_, rest, _ := strings.Cut(endpoint, "://")
	host, _, _ := strings.Cut(rest, "/")
	return host
}
