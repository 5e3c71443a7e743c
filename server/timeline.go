package server

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/recur-journal/recur/account"
	"github.com/recur-journal/recur/journal"
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
		account.ScopeCapturesRead, http.StatusUnauthorized, http.StatusForbidden, http.StatusUnprocessableEntity)
	o.Description += " One entry per day from from to to, both included, in your timezone, empty days included. Without dates: the last 30 days."
	huma.Register(s.api, o, s.getTimeline)
	// The handler checks the dates, with sentences of its own.
	for _, name := range []string{"from", "to"} {
		s.describeParam(o.Path, o.Method, name, func(p *huma.Schema) { p.Format = "date" })
	}
}

func (s *Server) getTimeline(ctx context.Context, in *timelineInput) (*struct{ Body Data[[]TimelineDay] }, error) {
	list, err := journal.Timeline(ctx, s.opts.Store, current(ctx).User.ID, in.From, in.To)
	if err != nil {
		return nil, err
	}
	days := make([]TimelineDay, len(list))
	for i, d := range list {
		days[i] = TimelineDay{Date: d.Date, Captures: make([]CaptureRef, len(d.Captures)), Patterns: make([]TimelinePattern, len(d.Patterns))}
		for j, c := range d.Captures {
			days[i].Captures[j] = CaptureRef{ID: c.ID, Status: string(c.Status), OccurredAt: Timestamp(c.OccurredAt)}
		}
		for j, p := range d.Patterns {
			days[i].Patterns[j] = TimelinePattern{ID: p.ID, Name: p.Name, Sentiment: p.Sentiment, Impact: p.Impact}
		}
	}
	return one(days), nil
}
