package notify

import (
	"context"
	"encoding/json"

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

// locale is the language of the user's app_locale, which their
// notifications speak; English when it cannot be read.
func (n *Notifier) locale(ctx context.Context, userID string) *i18n.Locale {
	tag, err := n.opts.Store.SettingValue(ctx, userID, store.SettingAppLocale)
	if err != nil {
		tag = i18n.Default
	}
	return i18n.For(tag)
}

// localBody is the delivery's body for the addressee's eyes: a pattern's
// name becomes its name in their app_locale where the pipeline has written
// one (webhooks keep the body as stored). It returns body on any failure.
func (n *Notifier) localBody(ctx context.Context, userID string, body []byte) []byte {
	var ev map[string]any
	if json.Unmarshal(body, &ev) != nil {
		return body
	}
	data, _ := ev["data"].(map[string]any)
	id, _ := data["id"].(string)
	if typ, _ := ev["type"].(string); id == "" || len(typ) < 8 || typ[:8] != "pattern." {
		return body
	}
	tag, err := n.opts.Store.SettingValue(ctx, userID, store.SettingAppLocale)
	if err != nil {
		return body
	}
	names, err := n.opts.Store.PatternNames(ctx, userID, tag)
	if err != nil || names[id] == "" {
		return body
	}
	data["name"] = names[id]
	out, err := json.Marshal(ev)
	if err != nil {
		return body
	}
	return out
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
