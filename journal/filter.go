package journal

import (
	"context"
	"net/url"
	"strings"
	"time"

	"github.com/recur-journal/recur/store"
)

// Filter is a list of entries as asked for, by the API or a page: the words
// to search for and the filters of store.CaptureFilter, with the dates as
// days in the user's timezone.
type Filter struct {
	Query    string
	Feelings []string
	Patterns []string
	Persons  []string
	Places   []string
	From, To string // YYYY-MM-DD, both days included; "" leaves that end open
}

// FilterFromQuery reads a Filter from query parameters named as the API
// names them: q, feeling, pattern, person, place, from and to.
func FilterFromQuery(v url.Values) Filter {
	return Filter{Query: strings.TrimSpace(v.Get("q")), Feelings: v["feeling"], Patterns: v["pattern"], Persons: v["person"],
		Places: v["place"], From: strings.TrimSpace(v.Get("from")), To: strings.TrimSpace(v.Get("to"))}
}

// Values is the filter as query parameters, with the names FilterFromQuery
// reads; empty ones are left out.
func (f Filter) Values() url.Values {
	v := url.Values{}
	add := func(name string, values ...string) {
		for _, s := range values {
			if s = strings.TrimSpace(s); s != "" {
				v.Add(name, s)
			}
		}
	}
	add("q", f.Query)
	add("feeling", f.Feelings...)
	add("pattern", f.Patterns...)
	add("person", f.Persons...)
	add("place", f.Places...)
	add("from", f.From)
	add("to", f.To)
	return v
}

// Empty reports whether the filter lets every entry through.
func (f Filter) Empty() bool { return len(f.Values()) == 0 }

// FindCaptures returns a page of the user's entries that f lets through,
// and how many it lets through in all: with words, best match first, each
// with a snippet (HTML, as SearchCaptures gives it); without, newest first.
// It returns EINVALID naming "from" or "to" for a date that cannot be read
// or a to before from, and the errors of store.FindCaptures.
func (j *Captures) FindCaptures(ctx context.Context, userID string, f Filter, p store.Page) ([]CaptureMatch, int, error) {
	sf := store.CaptureFilter{Query: f.Query, Feelings: f.Feelings, Patterns: f.Patterns, Persons: f.Persons, Places: f.Places}
	if f.From != "" || f.To != "" {
		loc, err := j.Store.Location(ctx, userID)
		if err != nil {
			return nil, 0, err
		}
		var first, last time.Time
		if f.From != "" {
			if first, err = ParseDay("from", f.From); err != nil {
				return nil, 0, err
			}
			sf.From = store.StartOfDay(first.Year(), first.Month(), first.Day(), loc)
		}
		if f.To != "" {
			if last, err = ParseDay("to", f.To); err != nil {
				return nil, 0, err
			}
			if f.From != "" && last.Before(first) {
				return nil, 0, store.Invalid("to", "The to must be a date on or after from.")
			}
			after := last.AddDate(0, 0, 1)
			sf.To = store.StartOfDay(after.Year(), after.Month(), after.Day(), loc)
		}
	}
	found, total, err := j.Store.FindCaptures(ctx, userID, sf, p)
	if err != nil {
		return nil, 0, err
	}
	out := make([]CaptureMatch, len(found))
	for i, m := range found {
		out[i] = CaptureMatch{Capture: m.Capture}
		if m.Snippet != "" || f.Query != "" {
			out[i].Snippet = HighlightSnippet(m.Snippet)
		}
	}
	return out, total, nil
}
