package notify

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"golang.org/x/text/language"

	"github.com/recur-journal/recur/internal/i18n"
	"github.com/recur-journal/recur/store"
)

// Message is an event told in words, for ntfy and mail.
type Message struct {
	Title  string
	Text   string
	Tag    string // an ntfy tag, shown as an emoji
	Urgent bool
}

// Describe tells the event whose JSON body is body in English words.
func Describe(body []byte) Message { return DescribeIn(i18n.For(i18n.Default), body) }

// NameWait is how long a notice about a pattern, other than a webhook's,
// waits for the pattern's name in the addressee's language: the pipeline
// writes it after the detection that sent the notice. NameRetry is how
// often it looks meanwhile. Past the wait the notice goes without a name,
// rather than with the English one.
const (
	NameWait  = 10 * time.Minute
	NameRetry = 30 * time.Second
)

// patternOf is the id of the pattern an event's body is about, or "".
func patternOf(body []byte) (id string, ev map[string]any) {
	if json.Unmarshal(body, &ev) != nil {
		return "", nil
	}
	data, _ := ev["data"].(map[string]any)
	id, _ = data["id"].(string)
	if typ, _ := ev["type"].(string); !strings.HasPrefix(typ, "pattern.") {
		return "", nil
	}
	return id, ev
}

// nameIn is the name of the user's pattern id in app_locale tag, or ""
// when the pipeline has written none yet; foreign is whether tag is
// another language than English, and so needs one.
func (n *Notifier) nameIn(ctx context.Context, userID, tag, id string) (name string, foreign bool, err error) {
	if t, err := language.Parse(tag); err != nil {
		return "", false, nil
	} else if base, _ := t.Base(); base.String() == i18n.Default {
		return "", false, nil
	}
	names, err := n.opts.Store.PatternNames(ctx, userID, tag)
	return names[id], true, err
}

// awaitName is when a delivery about a pattern not yet named in its
// addressee's language (unnamed) should be tried again for the name, or
// zero when it goes now: it has the name, needs none, or has waited
// NameWait.
func (n *Notifier) awaitName(d *store.Delivery, unnamed bool) time.Time {
	now, until := n.opts.Now(), d.CreatedAt.Add(NameWait)
	if !unnamed || !now.Before(until) {
		return time.Time{}
	}
	return minTime(now.Add(NameRetry), until)
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// localized is the language of d's user's app_locale, which their
// notifications speak (English when it cannot be read), and d's body for
// their eyes: a pattern's name becomes its name in that language where the
// pipeline has written one, and none at all where it has not (unnamed), so
// that no English name reaches a reader of another language. The body
// stays as stored on any failure, and for a webhook.
func (n *Notifier) localized(ctx context.Context, d *store.Delivery) (loc *i18n.Locale, body []byte, unnamed bool) {
	body = []byte(d.Body)
	if d.Kind == store.ChannelWebhook {
		return i18n.For(i18n.Default), body, false
	}
	tag, err := n.opts.Store.SettingValue(ctx, d.UserID, store.SettingAppLocale)
	if err != nil {
		return i18n.For(i18n.Default), body, false
	}
	loc = i18n.For(tag)
	id, ev := patternOf(body)
	if id == "" {
		return loc, body, false
	}
	name, foreign, err := n.nameIn(ctx, d.UserID, tag, id)
	if err != nil || !foreign {
		return loc, body, false
	}
	ev["data"].(map[string]any)["name"] = name
	out, err := json.Marshal(ev)
	if err != nil {
		return loc, body, false
	}
	return loc, out, name == ""
}

// DescribeIn tells the event whose JSON body is body in loc's words: the
// words of ntfy, push and mail notifications, in the addressee's language.
func DescribeIn(loc *i18n.Locale, body []byte) Message {
	var ev struct {
		Type string         `json:"type"`
		Data map[string]any `json:"data"`
	}
	json.Unmarshal(body, &ev)
	str := func(k string) string { s, _ := ev.Data[k].(string); return s }
	name := str("name")
	if name == "" && slices.Contains([]string{PatternDetected, PatternUrgent, PatternReopened, PatternClosed}, ev.Type) {
		return namelessPattern(loc, ev.Type)
	}
	switch ev.Type {
	case CaptureProcessed:
		return Message{Title: loc.T("Entry read"), Text: loc.T("Recur has read your entry."), Tag: "memo"}
	case CaptureFailed:
		return Message{Title: loc.T("Entry not read"), Text: loc.T("Recur could not read an entry; its text is kept and you can ask for it to be read again."), Tag: "warning"}
	case PatternDetected:
		return Message{Title: loc.T("New pattern: %s", name), Text: loc.T("“%s” has come back on three different days.", name), Tag: "repeat"}
	case PatternUrgent:
		return Message{Title: loc.T("Urgent: %s", name), Text: loc.T("“%s” came up on three days of the last seven.", name), Tag: "rotating_light", Urgent: true}
	case PatternReopened:
		return Message{Title: loc.T("Back again: %s", name), Text: loc.T("“%s” has come back after going quiet.", name), Tag: "repeat"}
	case PatternClosed:
		return Message{Title: loc.T("Gone quiet: %s", name), Text: loc.T("“%s” has not come up for seven days.", name), Tag: "zzz"}
	case ReviewReady:
		return Message{Title: loc.T("Your weekly review"), Text: loc.T("Your review of the week %s is ready.", str("week")), Tag: "calendar"}
	case Reminder:
		return Message{Title: loc.T("Time to write"), Text: loc.T("You have not written in Recur today. A few lines are enough."), Tag: "pencil2"}
	case Test:
		return Message{Title: loc.T("Test notification"), Text: loc.T("Notifications from Recur reach you here."), Tag: "bell"}
	}
	return Message{Title: "Recur", Text: loc.T("Something changed in your journal (%s).", ev.Type), Tag: "bell"}
}

// namelessPattern tells a pattern event whose pattern has no name in loc's
// language yet: the notice says what happened, and the link opens it.
func namelessPattern(loc *i18n.Locale, typ string) Message {
	switch typ {
	case PatternUrgent:
		return Message{Title: loc.T("Urgent pattern"), Text: loc.T("A pattern came up on three days of the last seven."), Tag: "rotating_light", Urgent: true}
	case PatternReopened:
		return Message{Title: loc.T("A pattern is back"), Text: loc.T("A pattern has come back after going quiet."), Tag: "repeat"}
	case PatternClosed:
		return Message{Title: loc.T("A pattern went quiet"), Text: loc.T("A pattern has not come up for seven days."), Tag: "zzz"}
	}
	return Message{Title: loc.T("New pattern"), Text: loc.T("A pattern has come back on three different days."), Tag: "repeat"}
}
