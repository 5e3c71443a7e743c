package web

import (
	"encoding/json"
	"errors"
	"mime"
	"net/http"
	"strings"

	"github.com/recur-journal/recur/store"
)

// wantsEntryJSON says the write form was sent by the page's script, which
// puts the new entry on the page itself: it asks for JSON. A form sent
// without script gets the page and its redirect, as ever.
func wantsEntryJSON(r *http.Request) bool {
	t, _, _ := mime.ParseMediaType(r.Header.Get("Accept"))
	return t == "application/json"
}

// writtenEntry is the answer to the page's script for a new entry: the
// entry drawn as the journal draws it, and the day it goes under.
type writtenEntry struct {
	ID      string `json:"id"`
	Date    string `json:"date"`    // local YYYY-MM-DD
	Heading string `json:"heading"` // the day's heading, as the journal says it
	HTML    string `json:"html"`    // the entry's list item
}

// answerEntryJSON answers the script's write with 201 and the entry as the
// journal would list it, or with 422 and the form field's sentence, in the
// API's shape; anything else is answered as fail does.
func (a *App) answerEntryJSON(w http.ResponseWriter, r *http.Request, c *store.Capture, err error) {
	var e *store.Error
	switch {
	case err == nil:
		v := viewerOf(r)
		day := groupByDay([]store.Capture{*c}, v.Loc, a.opts.Store.Now(), v.Lang)[0]
		var b strings.Builder
		if err := a.pages[v.Lang.Lang]()["journal"].ExecuteTemplate(&b, "entry-item", day.Entries[0]); err != nil {
			a.fail(w, r, err)
			return
		}
		writeJSON(w, http.StatusCreated, map[string]any{"data": writtenEntry{ID: c.ID, Date: day.Date, Heading: day.Heading, HTML: b.String()}})
	case store.ErrorCode(err) == store.EINVALID && errors.As(err, &e):
		field, msg := formField(e.Field), a.locale(r).Sentence(e.Message)
		writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"message": msg, "errors": map[string][]string{field: {msg}}})
	default:
		a.fail(w, r, err)
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
