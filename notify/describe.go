package notify

import (
	"encoding/json"
	"fmt"
)

// Message is an event told in words, for ntfy and mail.
type Message struct {
	Title  string
	Text   string
	Tag    string // an ntfy tag, shown as an emoji
	Urgent bool
}

// Describe tells the event whose JSON body is body in words. The words
// are English: channels reach people outside the web app, whose language
// is not known there.
func Describe(body []byte) Message {
	var ev struct {
		Type string         `json:"type"`
		Data map[string]any `json:"data"`
	}
	json.Unmarshal(body, &ev)
	str := func(k string) string { s, _ := ev.Data[k].(string); return s }
	name := str("name")
	switch ev.Type {
	case CaptureProcessed:
		return Message{Title: "Entry read", Text: "Recur has read your entry.", Tag: "memo"}
	case CaptureFailed:
		return Message{Title: "Entry not read", Text: "Recur could not read an entry; its text is kept and you can ask for it to be read again.", Tag: "warning"}
	case PatternDetected:
		return Message{Title: "New pattern: " + name, Text: fmt.Sprintf("%q has come back on three different days.", name), Tag: "repeat"}
	case PatternUrgent:
		return Message{Title: "Urgent: " + name, Text: fmt.Sprintf("%q came up on three days of the last seven.", name), Tag: "rotating_light", Urgent: true}
	case PatternReopened:
		return Message{Title: "Back again: " + name, Text: fmt.Sprintf("%q has come back after going quiet.", name), Tag: "repeat"}
	case PatternClosed:
		return Message{Title: "Gone quiet: " + name, Text: fmt.Sprintf("%q has not come up for seven days.", name), Tag: "zzz"}
	case ReviewReady:
		return Message{Title: "Your weekly review", Text: "Your review of the week " + str("week") + " is ready.", Tag: "calendar"}
	case Reminder:
		return Message{Title: "Time to write", Text: "You have not written in Recur today. A few lines are enough.", Tag: "pencil2"}
	case Test:
		return Message{Title: "Test notification", Text: "Notifications from Recur reach you here.", Tag: "bell"}
	}
	return Message{Title: "Recur", Text: "Something changed in your journal (" + ev.Type + ").", Tag: "bell"}
}
