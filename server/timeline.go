package server

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"
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
	From string `query:"from" doc:"First day, YYYY-MM-DD. Default: 29 days before to."`
	To   string `query:"to" doc:"Last day, YYYY-MM-DD, on or after from and at most 92 days after it. Default: today in your timezone."`
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

func parseDay(field, value string, loc *time.Location) (time.Time, error) {
	d, err := time.ParseInLocation(time.DateOnly, value, loc)
	if err != nil {
		return d, invalid(field, "The "+field+" must be a date in the form YYYY-MM-DD.")
	}
	return d, nil
}

func (s *Server) getTimeline(ctx context.Context, in *timelineInput) (*struct{ Body Data[[]TimelineDay] }, error) {
	userID := current(ctx).User.ID
	loc, err := s.opts.Store.Location(ctx, userID)
	if err != nil {
		return nil, err
	}
	y, m, d := s.opts.Store.Now().In(loc).Date()
	to := time.Date(y, m, d, 0, 0, 0, 0, loc)
	if in.To != "" {
		if to, err = parseDay("to", in.To, loc); err != nil {
			return nil, err
		}
	}
	from := to.AddDate(0, 0, -(timelineDefaultDays - 1))
	if in.From != "" {
		if from, err = parseDay("from", in.From, loc); err != nil {
			return nil, err
		}
	}
	switch {
	case to.Before(from):
		return nil, invalid("to", "The to must be a date on or after from.")
	case to.After(from.AddDate(0, 0, timelineMaxSpan)):
		return nil, invalid("to", "The to may be at most 92 days after from.")
	}
	end := to.AddDate(0, 0, 1) // local midnight after the last day, DST included
	list, err := s.opts.Store.Timeline(ctx, userID, from, end)
	if err != nil {
		return nil, err
	}
	var days []TimelineDay
	index := map[string]int{}
	for day := from; day.Before(end); day = day.AddDate(0, 0, 1) {
		key := day.Format(time.DateOnly)
		index[key] = len(days)
		days = append(days, TimelineDay{Date: key, Captures: []CaptureRef{}, Patterns: []TimelinePattern{}})
	}
	for _, c := range list {
		day := &days[index[c.OccurredAt.In(loc).Format(time.DateOnly)]]
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
