package web

import (
	"encoding/json"

	"github.com/recur-journal/recur/internal/i18n"
)

// scriptKeys are the catalogue keys the page scripts say (static/*.js,
// through static/i18n.js's t); the layout hands their translations to the
// scripts.
var scriptKeys = []string{
	i18n.Key("Waiting to be read"), i18n.Key("Being read"), i18n.Key("Read"), i18n.Key("Could not be read"),
	i18n.Key("This entry could not be read: the model kept answering with something unusable. Your text is kept."),
	i18n.Key("Try again"), i18n.Key("Read: show what was found"), i18n.Key("This entry has been read."),
	i18n.Key("Show what was found"), i18n.Key("A pattern showed up: %s."), i18n.Key("A pattern showed up."), i18n.Key("See it"),
	i18n.Key("Copied"), i18n.Key("Press Ctrl+C to copy"),
	i18n.Key("Done: %[2]d of %[1]d entries read."), i18n.Key("%d could not be read."),
	i18n.Key("%[2]d of %[1]d entries read, %[3]d waiting."),
	i18n.Key("Waiting to send"), i18n.Key("Not saved: %s It is kept on this device only: copy the text, write the entry again, then remove it here."),
	i18n.Key("Waiting to send: kept on this device until the connection is back"),
	i18n.Key("Remove for good: the text is not saved anywhere else"), i18n.Key("Remove from this device"),
	i18n.Key("%d entries written offline were sent."), i18n.Key("Show the journal"),
	i18n.Key("%d entries written on this device are not in your journal yet. They are shown only to you, once you sign in here again."),
	i18n.Key("Keep them to send later, and sign out"), i18n.Key("Delete them, and sign out"), i18n.Key("Stay signed in"),
	i18n.Key("Your browser is in %s: Save to count your days there."),
	i18n.Key("Notifications are blocked for Recur in this browser; allow them in its site settings and try again."),
	i18n.Key("Notifications are blocked for Recur in this browser; allow them in its site settings first."),
	i18n.Key("The server answered %d."), i18n.Key("This browser could not subscribe: %s"),
	i18n.Key("Discard"), i18n.Key("Your unsaved text is back."), i18n.Key("The server refused the entry (%d)."),
}

// scriptMessages is the JSON the layout puts on <html data-messages>.
func scriptMessages(loc *i18n.Locale) string {
	b, _ := json.Marshal(loc.Messages(scriptKeys))
	return string(b)
}
