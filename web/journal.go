package web

import (
	"context"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/recur-journal/recur/internal/i18n"
	"github.com/recur-journal/recur/journal"
	"github.com/recur-journal/recur/store"
)

// statusWords says a capture's status in plain words, as catalogue keys.
var statusWords = map[store.CaptureStatus]string{
	store.StatusQueued:     i18n.Key("Waiting to be read"),
	store.StatusProcessing: i18n.Key("Being read"),
	store.StatusProcessed:  i18n.Key("Read"),
	store.StatusFailed:     i18n.Key("Could not be read"),
}

// entryView is one entry as the journal lists it.
type entryView struct {
	ID, Status, StatusWords string
	Text                    string
	Time                    string // local clock time
	OccurredAt              string // RFC 3339, for the retry form
	UpdatedAt               string // as events carry it, to tell a stale event from a new one
	Date, TimeOfDay         string // local date and time, for the edit form
	Day                     string // local date and time, in the reader's words
	Snippet                 template.HTML
	Feelings                []chip             // what was felt, by valence
	Patterns                []store.PatternRef // the patterns it belongs to
	Reading                 bool               // waiting or being read: its findings are still to come
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
	SearchError   string
	Text          string
	Date, Time    string
	WrittenBefore bool // the journal holds entries (search may still find none)
	Filters       filterForm
}

func newEntryView(c *store.Capture, loc *time.Location, lang *i18n.Locale) entryView {
	t := c.OccurredAt.In(loc)
	return entryView{Reading: c.Status == store.StatusQueued || c.Status == store.StatusProcessing, ID: c.ID, Status: string(c.Status), StatusWords: lang.T(statusWords[c.Status]), Text: c.Original,
		Time: t.Format("15:04"), OccurredAt: c.OccurredAt.Format(time.RFC3339Nano), UpdatedAt: store.FormatTime(c.UpdatedAt), Date: t.Format(time.DateOnly), TimeOfDay: t.Format("15:04"),
		Day: lang.Date(t, i18n.ShortDateTime)}
}

// dayHeading names a local date for a heading: Today, Yesterday, or the date.
func dayHeading(lang *i18n.Locale, day, today time.Time) string {
	switch today.Sub(day).Hours() / 24 {
	case 0:
		return lang.T("Today")
	case 1:
		return lang.T("Yesterday")
	}
	if day.Year() == today.Year() {
		return lang.Date(day, i18n.WeekdayDayMonth)
	}
	return lang.Date(day, i18n.WeekdayDayMonthYear)
}

// groupByDay puts entries, newest first, under their local days' headings.
func groupByDay(list []store.Capture, loc *time.Location, now time.Time, lang *i18n.Locale) []dayGroup {
	var days []dayGroup
	ty, tm, td := now.In(loc).Date()
	today := time.Date(ty, tm, td, 0, 0, 0, 0, time.UTC)
	for i := range list {
		e := newEntryView(&list[i], loc, lang)
		if len(days) == 0 || days[len(days)-1].Date != e.Date {
			y, m, d := list[i].OccurredAt.In(loc).Date()
			days = append(days, dayGroup{Date: e.Date, Heading: dayHeading(lang, time.Date(y, m, d, 0, 0, 0, 0, time.UTC), today)})
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
		a.signinPage(w, r, http.StatusOK, signinData{})
		return
	}
	r = r.WithContext(context.WithValue(r.Context(), viewerKey{}, v))
	a.journal(w, r, http.StatusOK, journalData{})
}

// journal renders the list page with d's form state: the entries newest
// first under their days' headings, or with q those that hold its words,
// best match first; either narrowed by the filters of the query.
func (a *App) journal(w http.ResponseWriter, r *http.Request, status int, d journalData) {
	v := viewerOf(r)
	f := journal.FilterFromQuery(r.URL.Query())
	pageNo, _ := strconv.Atoi(r.URL.Query().Get("page"))
	pageNo = max(pageNo, 1)
	pg := store.Page{Page: pageNo, Limit: a.opts.PageSize}
	found, total, err := a.captures.FindCaptures(r.Context(), v.User.ID, f, pg)
	var e *store.Error
	if code := store.ErrorCode(err); (code == store.EINVALID || code == store.ETOOMANY) && errors.As(err, &e) {
		d.SearchError = searchSentence(v.Lang, e, r.URL.Query().Get("feeling"))
		status = http.StatusUnprocessableEntity
		if code == store.ETOOMANY {
			status = http.StatusTooManyRequests
			w.Header().Set("Retry-After", "1")
		}
	} else if err != nil {
		a.fail(w, r, err)
		return
	}
	if f.Query != "" && len(found) > 0 {
		d.Days = []dayGroup{matchGroup(found, v.Loc, v.Lang)}
	} else if len(found) > 0 {
		list := make([]store.Capture, len(found))
		for i := range found {
			list[i] = found[i].Capture
		}
		d.Days = groupByDay(list, v.Loc, a.opts.Store.Now(), v.Lang)
	}
	name := a.patternNames(r)
	if err := a.addFindings(r, d.Days, name); err != nil {
		a.fail(w, r, err)
		return
	}
	choices, err := a.opts.Store.FilterChoices(r.Context(), v.User.ID)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	choices.Patterns = named(choices.Patterns, name)
	d.Filters = newFilterForm(f, choices)
	d.Query, d.Total, d.Page = f.Query, total, pageNo
	d.Pages = max(1, (total+pg.Limit-1)/pg.Limit)
	d.WrittenBefore = total > 0 || !f.Empty()
	link := func(n int) string {
		u := f.Values()
		u.Set("page", strconv.Itoa(n))
		return "/?" + encodeQuery(u)
	}
	if pageNo > 1 {
		d.Prev = link(pageNo - 1)
	}
	if pageNo < d.Pages {
		d.Next = link(pageNo + 1)
	}
	a.render(w, r, status, "journal", page{Title: v.Lang.T("Journal"), Nav: "journal", Data: d})
}

// searchSentence says what is wrong with a search or its filters in the
// page's words and the reader's language: the API's sentences name its
// parameters and hold numbers a catalogue key cannot.
func searchSentence(loc *i18n.Locale, e *store.Error, feeling string) string {
	m := e.Message
	switch {
	case e.Field == "from" || e.Field == "to":
		if strings.Contains(m, "on or after") {
			return loc.T("The end date must be on or after the start date.")
		}
		return loc.T("Pick dates with the date fields.")
	case e.Field == "feeling":
		return loc.T("“%s” is not one of Recur's feelings: pick one from the list.", feeling)
	case e.Field != "q":
		return loc.Sentence(m)
	case strings.Contains(m, "too long"):
		return loc.T("This search takes too long; search for fewer or longer words.")
	case strings.Contains(m, "characters"), strings.Contains(m, "UTF-8"):
		return loc.T("The search may hold at most %d letters, and no control characters.", store.SearchMaxLength)
	case strings.Contains(m, "different words"):
		return loc.T("The search may hold at most %d different words.", store.SearchMaxWords)
	}
	return loc.T("Type a word to search for.")
}

// addFindings adds to the listed entries their feelings and patterns,
// read for all of them at once, the patterns called by name.
func (a *App) addFindings(r *http.Request, days []dayGroup, name func(id, english string) string) error {
	var ids []string
	for _, d := range days {
		for _, e := range d.Entries {
			ids = append(ids, e.ID)
		}
	}
	found, err := a.opts.Store.FindingsOf(r.Context(), viewerOf(r).User.ID, ids)
	if err != nil {
		return err
	}
	for i := range days {
		for j := range days[i].Entries {
			e := &days[i].Entries[j]
			f := found[e.ID]
			e.Patterns = named(f.Patterns, name)
			for _, fl := range f.Feelings {
				c := feelingChip(viewerOf(r).Lang, fl.Name, fl)
				c.Href = filterHref("feeling", fl.Name)
				e.Feelings = append(e.Feelings, c)
			}
		}
	}
	return nil
}

// matchGroup lists search results in the order found, best first, each
// with its date, since days do not group a ranking.
func matchGroup(found []journal.CaptureMatch, loc *time.Location, lang *i18n.Locale) dayGroup {
	g := dayGroup{Date: "matches", Heading: lang.T("Best matches first")}
	for i := range found {
		e := newEntryView(&found[i].Capture, loc, lang)
		e.Time = e.Day
		// The snippet is the one piece of HTML: journal.HighlightSnippet
		// escaped all of the entry's text and added only <mark> tags.
		e.Snippet = template.HTML(found[i].Snippet)
		g.Entries = append(g.Entries, e)
	}
	return g
}

// occurredAt reads the form's optional date and time in the user's zone:
// no date is now; a date without a time is noon of that day.
func occurredAt(r *http.Request, loc *time.Location, now time.Time) (time.Time, error) {
	date, clock := strings.TrimSpace(r.PostFormValue("date")), strings.TrimSpace(r.PostFormValue("time"))
	if date == "" {
		if clock != "" {
			return time.Time{}, store.Invalid("date", "%s", i18n.Key("Give a date with the time, or leave both empty for now."))
		}
		return now, nil
	}
	if clock == "" {
		clock = "12:00"
	}
	t, err := time.ParseInLocation("2006-01-02 15:04", date+" "+clock, loc)
	if err != nil {
		return time.Time{}, store.Invalid("date", "%s", i18n.Key("The date must look like 2026-03-14 and the time like 21:30."))
	}
	// A day later than the writer's today is refused here, in the form's
	// words, before the journal's own rule (a day ahead, for clocks that
	// disagree) would let it through or name occurred_at.
	if t.Format(time.DateOnly) > now.In(loc).Format(time.DateOnly) {
		return time.Time{}, store.Invalid("date", "%s", i18n.Key("That date is in the future: pick today or an earlier day."))
	}
	if t.Year() < 1900 {
		return time.Time{}, store.Invalid("date", "%s", i18n.Key("That date is before 1900: pick a later day."))
	}
	return t, nil
}

// createEntry saves a new entry from the write form and queues it.
func (a *App) createEntry(w http.ResponseWriter, r *http.Request) {
	v := viewerOf(r)
	text := r.PostFormValue("text")
	d := journalData{Text: text, Date: r.PostFormValue("date"), Time: r.PostFormValue("time")}
	at, err := occurredAt(r, v.Loc, a.opts.Store.Now())
	var c *store.Capture
	if err == nil {
		c, err = a.captures.CreateCapture(r.Context(), v.User.ID, journal.NewCapture{Text: text, OccurredAt: &at})
	}
	if wantsEntryJSON(r) {
		a.answerEntryJSON(w, r, c, err)
		return
	}
	if err == nil {
		http.Redirect(w, r, "/#entry-"+c.ID, http.StatusSeeOther)
		return
	}
	a.invalidForm(w, r, err, func(msg, field string) {
		d.Error, d.Field = viewerOf(r).Lang.Sentence(msg), formField(field)
		a.journal(w, r, http.StatusUnprocessableEntity, d)
	})
}

// formField names the form's field for a field of the journal's rules:
// the moment is the form's date and time.
func formField(field string) string {
	if field == "occurred_at" {
		return "date"
	}
	return field
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
	c, err := a.captures.CreateCapture(r.Context(), v.User.ID, journal.NewCapture{Text: old.Original, OccurredAt: &old.OccurredAt})
	if err != nil {
		a.fail(w, r, err)
		return
	}
	if err := a.captures.DeleteCapture(r.Context(), v.User.ID, old.ID); err != nil {
		a.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/#entry-"+c.ID, http.StatusSeeOther)
}

// deleteEntry deletes an entry after the confirming second button.
func (a *App) deleteEntry(w http.ResponseWriter, r *http.Request) {
	v := viewerOf(r)
	if r.PostFormValue("confirm") != "yes" {
		a.fail(w, r, store.Invalid("confirm", "Deleting needs the second button, which confirms it."))
		return
	}
	if err := a.captures.DeleteCapture(r.Context(), v.User.ID, r.PathValue("id")); err != nil {
		a.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// editEntry saves a changed text or time; a changed text is analysed again.
func (a *App) editEntry(w http.ResponseWriter, r *http.Request) {
	v := viewerOf(r)
	id := r.PathValue("id")
	text := r.PostFormValue("text")
	u := store.CaptureUpdate{Text: &text}
	// The edit form always holds the entry's date; without one the moment
	// stays as it was rather than moving to now.
	at, err := occurredAt(r, v.Loc, a.opts.Store.Now())
	if err == nil && strings.TrimSpace(r.PostFormValue("date")) != "" {
		u.OccurredAt = &at
	}
	if err == nil {
		_, err = a.captures.UpdateCapture(r.Context(), v.User.ID, id, u)
	}
	if err == nil {
		http.Redirect(w, r, "/entries/"+id, http.StatusSeeOther)
		return
	}
	a.invalidForm(w, r, err, func(msg, field string) {
		a.entry(w, r, http.StatusUnprocessableEntity, &formError{Message: v.Lang.Sentence(msg), Field: formField(field), Text: text})
	})
}

// formError is a form shown again with what was wrong.
type formError struct {
	Message, Field, Text string
}

func (f *formError) String() string { return fmt.Sprintf("%s: %s", f.Field, f.Message) }
