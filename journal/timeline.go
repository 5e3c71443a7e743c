package journal

import (
	"context"
	"strconv"
	"time"

	"github.com/recur-journal/recur/store"
)

// Timeline bounds.
const (
	TimelineDefaultDays = 30 // the days shown when no dates are given
	TimelineMaxSpan     = 92 // how many days to may lie after from
)

// Day is one calendar day in the user's timezone: its captures, oldest
// first, the patterns (rejected ones left out) they belong to, each once, in
// the order they first show up, and how pleasant the day's feelings were.
type Day struct {
	Date     string // YYYY-MM-DD
	Captures []store.CaptureRef
	Patterns []store.PatternRef
	// Feelings counts the feelings found in the day's captures and Mixed
	// those of them that are mixed (bittersweet, nostalgic); Pleasantness
	// is the mean valence of the others, from -1 (all unpleasant) to 1 (all
	// pleasant), 0 when there are none: a mixed feeling tips no balance.
	Feelings, Mixed int
	Pleasantness    float64
}

// ParseDay reads a calendar date, YYYY-MM-DD, in years 1 to 9999, given as
// the input field. The date is returned at noon UTC, so that whole days can
// be counted and stepped through without a timezone. It returns EINVALID
// naming field.
func ParseDay(field, value string) (time.Time, error) {
	d, err := time.Parse(time.DateOnly, value)
	if err != nil {
		return d, store.Invalid(field, "The %s must be a date in the form YYYY-MM-DD.", field)
	}
	if d.Year() < store.MinYear {
		return d, store.Invalid(field, "The %s must be a date between 0001-01-01 and 9999-12-31.", field)
	}
	return d.Add(12 * time.Hour), nil
}

// Timeline lays the user's captures out by day, one Day for every date from
// from to to (YYYY-MM-DD, both included), empty days too, in the user's
// timezone. Without to it ends today; without from it starts
// TimelineDefaultDays-1 days before to. It returns EINVALID naming "from"
// or "to" for a date that cannot be read, or "to" when to lies before from
// or more than TimelineMaxSpan days after it.
func Timeline(ctx context.Context, st *store.Store, userID, from, to string) ([]Day, error) {
	loc, err := st.Location(ctx, userID)
	if err != nil {
		return nil, err
	}
	first, last, err := timelineSpan(from, to, st.Now().In(loc))
	if err != nil {
		return nil, err
	}
	// Days are counted as dates, and each is cut at the first instant of
	// that date in the user's zone, so a daylight-saving change, even one
	// that skips midnight, gives each date once.
	var days []Day
	index := map[string]int{}
	for day := first; !day.After(last); day = day.AddDate(0, 0, 1) {
		key := day.Format(time.DateOnly)
		index[key] = len(days)
		days = append(days, Day{Date: key, Captures: []store.CaptureRef{}, Patterns: []store.PatternRef{}})
	}
	after := last.AddDate(0, 0, 1)
	start, end := store.StartOfDay(first.Year(), first.Month(), first.Day(), loc), store.StartOfDay(after.Year(), after.Month(), after.Day(), loc)
	list, err := st.Timeline(ctx, userID, start, end)
	if err != nil {
		return nil, err
	}
	vals, err := st.FeelingValences(ctx, userID, start, end)
	if err != nil {
		return nil, err
	}
	sums := make([]int, len(days))
	for _, v := range vals {
		if i, ok := index[v.OccurredAt.In(loc).Format(time.DateOnly)]; ok {
			days[i].Feelings++
			sums[i] += v.Valence
			if v.Valence == 0 {
				days[i].Mixed++
			}
		}
	}
	for i := range days {
		if n := days[i].Feelings - days[i].Mixed; n > 0 {
			days[i].Pleasantness = float64(sums[i]) / float64(n)
		}
	}
	for _, c := range list {
		i, ok := index[c.OccurredAt.In(loc).Format(time.DateOnly)]
		if !ok {
			continue
		}
		day := &days[i]
		day.Captures = append(day.Captures, c.CaptureRef)
		for _, p := range c.Patterns {
			seen := false
			for _, q := range day.Patterns {
				seen = seen || q.ID == p.ID
			}
			if !seen {
				day.Patterns = append(day.Patterns, p)
			}
		}
	}
	return days, nil
}

// YearPiece is how many days Year reads at a time: a span the timeline
// accepts (at most TimelineMaxSpan days after its first), as a client of
// GET /api/timeline reads a year.
const YearPiece = 92

// Year lays out the user's year by day, 1 January to 31 December in the
// user's timezone, reading the timeline in pieces of YearPiece days. It
// returns EINVALID naming "year" for a year outside 1 to 9999.
func Year(ctx context.Context, st *store.Store, userID string, year int) ([]Day, error) {
	if year < store.MinYear || year > store.MaxYear {
		return nil, store.Invalid("year", "The year must be between %s and %s.", strconv.Itoa(store.MinYear), strconv.Itoa(store.MaxYear))
	}
	var out []Day
	next := time.Date(year+1, 1, 1, 12, 0, 0, 0, time.UTC)
	for first := time.Date(year, 1, 1, 12, 0, 0, 0, time.UTC); first.Before(next); first = first.AddDate(0, 0, YearPiece) {
		last := first.AddDate(0, 0, YearPiece-1)
		if !last.Before(next) {
			last = next.AddDate(0, 0, -1)
		}
		days, err := Timeline(ctx, st, userID, first.Format(time.DateOnly), last.Format(time.DateOnly))
		if err != nil {
			return nil, err
		}
		out = append(out, days...)
	}
	return out, nil
}

// timelineSpan reads the first and last dates asked for, at noon UTC,
// filling in the defaults from today (a time in the user's zone).
func timelineSpan(from, to string, today time.Time) (first, last time.Time, err error) {
	y, m, d := today.Date()
	last = time.Date(y, m, d, 12, 0, 0, 0, time.UTC)
	if to != "" {
		if last, err = ParseDay("to", to); err != nil {
			return first, last, err
		}
	}
	first = last.AddDate(0, 0, -(TimelineDefaultDays - 1))
	if from != "" {
		if first, err = ParseDay("from", from); err != nil {
			return first, last, err
		}
	} else if first.Year() < store.MinYear {
		first = time.Date(store.MinYear, 1, 1, 12, 0, 0, 0, time.UTC)
	}
	switch {
	case last.Before(first):
		return first, last, store.Invalid("to", "The to must be a date on or after from.")
	case last.After(first.AddDate(0, 0, TimelineMaxSpan)):
		return first, last, store.Invalid("to", "The to may be at most %d days after from.", TimelineMaxSpan)
	}
	return first, last, nil
}
