package server

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/recur-journal/recur/store"
)

// Timeline bounds.
const (
	timelineDefaultDays = 30
	timelineMaxSpan     = 92
)

// TimelineDay is one calendar day in the user's timezone.
type TimelineDay struct {
	Date     string            `json:"date" format:"date" doc:"YYYY-MM-DD in your timezone."`
	Captures []CaptureRef      `json:"captures" doc:"The day's captures, oldest first."`
	Patterns []TimelinePattern `json:"patterns" doc:"The patterns the day's captures belong to (rejected ones left out)."`
}

// TimelinePattern names a pattern on the timeline.
type TimelinePattern struct {
	ID        string `json:"id" format:"uuid"`
	Name      string `json:"name"`
	Sentiment string `json:"sentiment" enum:"positive,negative"`
	Impact    string `json:"impact" enum:"low,moderate,high"`
}

type timelineInput struct {
	From string `query:"from" doc:"First day, YYYY-MM-DD, from 0001-01-01. Default: 29 days before to."`
	To   string `query:"to" doc:"Last day, YYYY-MM-DD, up to 9999-12-31, on or after from and at most 92 days after it. Default: today in your timezone."`
}

func (s *Server) registerTimeline() {
	o := op(http.MethodGet, "/timeline", "get-timeline", "Patterns", "Lay captures and patterns out by day",
		scopeCapturesRead, http.StatusUnauthorized, http.StatusForbidden, http.StatusUnprocessableEntity)
	o.Description += " One entry per day from from to to, both included, in your timezone, empty days included. Without dates: the last 30 days."
	huma.Register(s.api, o, s.getTimeline)
	// The handler checks the dates, with sentences of its own.
	for _, name := range []string{"from", "to"} {
		s.describeParam(o.Path, o.Method, name, func(p *huma.Schema) { p.Format = "date" })
	}
}

// parseDay reads a calendar date, YYYY-MM-DD, in years 1 to 9999. The date
// is returned at noon UTC, so that whole days can be counted and stepped
// through without a timezone.
func parseDay(field, value string) (time.Time, error) {
	d, err := time.Parse(time.DateOnly, value)
	if err != nil {
		return d, invalid(field, "The "+field+" must be a date in the form YYYY-MM-DD.")
	}
	if d.Year() < store.MinYear {
		return d, invalid(field, "The "+field+" must be a date between 0001-01-01 and 9999-12-31.")
	}
	return d.Add(12 * time.Hour), nil
}

func (s *Server) getTimeline(ctx context.Context, in *timelineInput) (*struct{ Body Data[[]TimelineDay] }, error) {
	userID := current(ctx).User.ID
	loc, err := s.opts.Store.Location(ctx, userID)
	if err != nil {
		return nil, err
	}
	y, m, d := s.opts.Store.Now().In(loc).Date()
	to := time.Date(y, m, d, 12, 0, 0, 0, time.UTC)
	if in.To != "" {
		if to, err = parseDay("to", in.To); err != nil {
			return nil, err
		}
	}
	from := to.AddDate(0, 0, -(timelineDefaultDays - 1))
	if in.From != "" {
		if from, err = parseDay("from", in.From); err != nil {
			return nil, err
		}
	} else if from.Year() < store.MinYear {
		from = time.Date(store.MinYear, 1, 1, 12, 0, 0, 0, time.UTC)
	}
	switch {
	case to.Before(from):
		return nil, invalid("to", "The to must be a date on or after from.")
	case to.After(from.AddDate(0, 0, timelineMaxSpan)):
		return nil, invalid("to", "The to may be at most 92 days after from.")
	}
	// Days are counted as dates, and each is cut at the first instant of
	// that date in the user's zone, so a daylight-saving change, even one
	// that skips midnight, gives each date once.
	var days []TimelineDay
	index := map[string]int{}
	for day := from; !day.After(to); day = day.AddDate(0, 0, 1) {
		key := day.Format(time.DateOnly)
		index[key] = len(days)
		days = append(days, TimelineDay{Date: key, Captures: []CaptureRef{}, Patterns: []TimelinePattern{}})
	}
	after := to.AddDate(0, 0, 1)
	list, err := s.opts.Store.Timeline(ctx, userID, store.StartOfDay(from.Year(), from.Month(), from.Day(), loc),
		store.StartOfDay(after.Year(), after.Month(), after.Day(), loc))
	if err != nil {
		return nil, err
	}
	for _, c := range list {
		i, ok := index[c.OccurredAt.In(loc).Format(time.DateOnly)]
		if !ok {
			continue
		}
		day := &days[i]
		day.Captures = append(day.Captures, CaptureRef{ID: c.ID, Status: c.Status, OccurredAt: Timestamp(c.OccurredAt)})
		for _, p := range c.Patterns {
			seen := false
			for _, q := range day.Patterns {
				seen = seen || q.ID == p.ID
			}
			if !seen {
				day.Patterns = append(day.Patterns, TimelinePattern{ID: p.ID, Name: p.Name, Sentiment: p.Sentiment, Impact: p.Impact})
			}
		}
	}
	return one(days), nil
}
