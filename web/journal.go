package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/recur-journal/recur/store"
)

// statusWords says a capture's status in plain words.
var statusWords = map[string]string{
	store.StatusQueued:     "Waiting to be read",
	store.StatusProcessing: "Being read",
	store.StatusProcessed:  "Read",
	store.StatusFailed:     "Could not be read",
}

// entryView is one entry as the journal lists it.
type entryView struct {
	ID, Status, StatusWords string
	Text                    string
	Time                    string // local clock time
	OccurredAt              string // RFC 3339, for the retry form
	Date, TimeOfDay         string // local date and time, for the edit form
	Match                   *snippet
}

// dayGroup is one day heading and its entries.
type dayGroup struct {
	Date    string // YYYY-MM-DD
	Heading string
	Entries []entryView
}

type journalData struct {
	Days          []dayGroup
	Query         string
	Total         int
	Page, Pages   int
	Prev, Next    string
	Error, Field  string
	Text          string
	Date, Time    string
	WrittenBefore bool // the journal holds entries (search may still find none)
}

func newEntryView(c *store.Capture, loc *time.Location) entryView {
	t := c.OccurredAt.In(loc)
	return entryView{ID: c.ID, Status: c.Status, StatusWords: statusWords[c.Status], Text: c.Original,
		Time: t.Format("15:04"), OccurredAt: c.OccurredAt.Format(time.RFC3339Nano), Date: t.Format(time.DateOnly), TimeOfDay: t.Format("15:04")}
}

// dayHeading names a local date for a heading: Today, Yesterday, or the date.
func dayHeading(day, today time.Time) string {
	switch today.Sub(day).Hours() / 24 {
	case 0:
		return "Today"
	case 1:
		return "Yesterday"
	}
	if day.Year() == today.Year() {
		return day.Format("Monday, 2 January")
	}
	return day.Format("Monday, 2 January 2006")
}

// groupByDay puts entries, newest first, under their local days' headings.
func groupByDay(list []store.Capture, loc *time.Location, now time.Time) []dayGroup {
	var days []dayGroup
	ty, tm, td := now.In(loc).Date()
	today := time.Date(ty, tm, td, 0, 0, 0, 0, time.UTC)
	for i := range list {
		e := newEntryView(&list[i], loc)
		if len(days) == 0 || days[len(days)-1].Date != e.Date {
			y, m, d := list[i].OccurredAt.In(loc).Date()
			days = append(days, dayGroup{Date: e.Date, Heading: dayHeading(time.Date(y, m, d, 0, 0, 0, 0, time.UTC), today)})
		}
		days[len(days)-1].Entries = append(days[len(days)-1].Entries, e)
	}
	return days
}

// home is the journal when signed in, and the sign-in page otherwise.
func (a *App) home(w http.ResponseWriter, r *http.Request) {
	v, err := a.viewer(r)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	if v == nil {
		a.render(w, r, http.StatusOK, "signin", page{Title: "Sign in", Data: signinData{}})
		return
	}
	r = r.WithContext(context.WithValue(r.Context(), viewerKey{}, v))
	a.journal(w, r, http.StatusOK, journalData{})
}

// journal renders the list page with d's form state.
func (a *App) journal(w http.ResponseWriter, r *http.Request, status int, d journalData) {
	v := viewerOf(r)
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	pageNo, _ := strconv.Atoi(r.URL.Query().Get("page"))
	pageNo = max(pageNo, 1)
	pg := store.Page{Page: pageNo, Limit: a.opts.PageSize}
	var list []store.Capture
	var total int
	var err error
	if q != "" {
		list, total, err = searchCaptures(r.Context(), a.opts.Store, v.User.ID, q, pg)
	} else {
		list, total, err = a.opts.Store.ListCaptures(r.Context(), v.User.ID, pg)
	}
	if err != nil {
		a.fail(w, r, err)
		return
	}
	d.Query, d.Total, d.Page = q, total, pageNo
	d.Pages = max(1, (total+pg.Limit-1)/pg.Limit)
	d.WrittenBefore = total > 0 || q != ""
	d.Days = groupByDay(list, v.Loc, a.opts.Store.Now())
	if q != "" {
		for i := range d.Days {
			for j := range d.Days[i].Entries {
				d.Days[i].Entries[j].Match = makeSnippet(list[indexOf(list, d.Days[i].Entries[j].ID)], q)
			}
		}
	}
	link := func(n int) string {
		u := url.Values{"page": {strconv.Itoa(n)}}
		if q != "" {
			u.Set("q", q)
		}
		return "/?" + u.Encode()
	}
	if pageNo > 1 {
		d.Prev = link(pageNo - 1)
	}
	if pageNo < d.Pages {
		d.Next = link(pageNo + 1)
	}
	a.render(w, r, status, "journal", page{Title: "Journal", Nav: "journal", Data: d})
}

func indexOf(list []store.Capture, id string) int {
	for i := range list {
		if list[i].ID == id {
			return i
		}
	}
	return 0
}

// searchCaptures finds the user's entries holding q. A plain LIKE for now:
// at the merge it calls the journal's FTS5 search, ranked, with its snippets.
func searchCaptures(ctx context.Context, s *store.Store, userID, q string, pg store.Page) ([]store.Capture, int, error) {
	return s.SearchCapturesLike(ctx, userID, q, pg)
}

// snippet is the part of a text around a search match.
type snippet struct{ Before, Match, After string }

// makeSnippet cuts about 80 characters around the first match of q in the
// entry's text (original first, then translation).
func makeSnippet(c store.Capture, q string) *snippet {
	for _, text := range []string{c.Original, c.Translated} {
		i := strings.Index(strings.ToLower(text), strings.ToLower(q))
		if i < 0 || len(strings.ToLower(text)) != len(text) {
			continue
		}
		before, match, after := text[:i], text[i:i+len(q)], text[i+len(q):]
		if utf8.RuneCountInString(before) > 40 {
			r := []rune(before)
			before = "…" + string(r[len(r)-40:])
		}
		if utf8.RuneCountInString(after) > 40 {
			after = string([]rune(after)[:40]) + "…"
		}
		return &snippet{Before: before, Match: match, After: after}
	}
	return nil
}

// occurredAt reads the form's optional date and time in the user's zone:
// no date is now; a date without a time is noon of that day.
func occurredAt(r *http.Request, loc *time.Location, now time.Time) (time.Time, error) {
	date, clock := strings.TrimSpace(r.PostFormValue("date")), strings.TrimSpace(r.PostFormValue("time"))
	if date == "" {
		if clock != "" {
			return time.Time{}, store.Invalid("date", "Give a date with the time, or leave both empty for now.")
		}
		return now, nil
	}
	if clock == "" {
		clock = "12:00"
	}
	t, err := time.ParseInLocation("2006-01-02 15:04", date+" "+clock, loc)
	if err != nil {
		return time.Time{}, store.Invalid("date", "The date must look like 2026-03-14 and the time like 21:30.")
	}
	if t.Year() < 1900 {
		return time.Time{}, store.Invalid("date", "The date must be after 1900.")
	}
	return t, nil
}

// createEntry saves a new entry from the write form and queues it.
func (a *App) createEntry(w http.ResponseWriter, r *http.Request) {
	v := viewerOf(r)
	text := r.PostFormValue("text")
	d := journalData{Text: text, Date: r.PostFormValue("date"), Time: r.PostFormValue("time")}
	at, err := occurredAt(r, v.Loc, a.opts.Store.Now())
	if err == nil {
		c := store.Capture{UserID: v.User.ID, Original: text, OccurredAt: at}
		if err = a.opts.Store.CreateCapture(r.Context(), &c); err == nil {
			a.notify()
			http.Redirect(w, r, "/#entry-"+c.ID, http.StatusSeeOther)
			return
		}
	}
	a.invalidForm(w, r, err, func(msg, field string) {
		d.Error, d.Field = msg, field
		a.journal(w, r, http.StatusUnprocessableEntity, d)
	})
}

// invalidForm shows a form again with the sentence of an EINVALID error, or
// answers any other error as fail does.
func (a *App) invalidForm(w http.ResponseWriter, r *http.Request, err error, again func(msg, field string)) {
	var e *store.Error
	if store.ErrorCode(err) == store.EINVALID && errors.As(err, &e) {
		again(e.Message, e.Field)
		return
	}
	a.fail(w, r, err)
}

// retryEntry posts a failed entry's text again, as a new entry at the same
// time, and removes the failed one.
func (a *App) retryEntry(w http.ResponseWriter, r *http.Request) {
	v := viewerOf(r)
	old, err := a.opts.Store.FindCapture(r.Context(), v.User.ID, r.PathValue("id"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	c := store.Capture{UserID: v.User.ID, Original: old.Original, OccurredAt: old.OccurredAt}
	if err := a.opts.Store.CreateCapture(r.Context(), &c); err != nil {
		a.fail(w, r, err)
		return
	}
	if err := a.opts.Store.DeleteCapture(r.Context(), v.User.ID, old.ID); err != nil {
		a.fail(w, r, err)
		return
	}
	a.notify()
	http.Redirect(w, r, "/#entry-"+c.ID, http.StatusSeeOther)
}

// deleteEntry deletes an entry after the confirming second button.
func (a *App) deleteEntry(w http.ResponseWriter, r *http.Request) {
	v := viewerOf(r)
	if r.PostFormValue("confirm") != "yes" {
		a.fail(w, r, store.Invalid("confirm", "Deleting needs the second button, which confirms it."))
		return
	}
	if err := a.opts.Store.DeleteCapture(r.Context(), v.User.ID, r.PathValue("id")); err != nil {
		a.fail(w, r, err)
		return
	}
	if a.opts.Analyser != nil {
		if err := a.opts.Analyser.Redetect(r.Context(), v.User.ID); err != nil {
			// The entry is gone either way; the nightly run counts again.
			a.opts.Logger.ErrorContext(r.Context(), "detect after delete", "error", err)
		}
	}
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// editEntry saves a changed text or time and has the entry analysed again.
func (a *App) editEntry(w http.ResponseWriter, r *http.Request) {
	v := viewerOf(r)
	id := r.PathValue("id")
	at, err := occurredAt(r, v.Loc, a.opts.Store.Now())
	if err == nil {
		err = updateCapture(r.Context(), a.opts.Store, v.User.ID, id, r.PostFormValue("text"), at)
	}
	if err == nil {
		a.notify()
		http.Redirect(w, r, "/entries/"+id, http.StatusSeeOther)
		return
	}
	a.invalidForm(w, r, err, func(msg, field string) {
		a.entry(w, r, http.StatusUnprocessableEntity, &formError{Message: msg, Field: field, Text: r.PostFormValue("text")})
	})
}

// updateCapture changes an entry's text and time and queues it again. At the
// merge journal.UpdateCapture replaces it.
func updateCapture(ctx context.Context, s *store.Store, userID, id, text string, at time.Time) error {
	_, err := s.ReviseCapture(ctx, userID, id, text, at)
	return err
}

func (a *App) notify() {
	if a.opts.Analyser != nil {
		a.opts.Analyser.Notify()
	}
}

// formError is a form shown again with what was wrong.
type formError struct {
	Message, Field, Text string
}

func (f *formError) String() string { return fmt.Sprintf("%s: %s", f.Field, f.Message) }
