package server

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/recur-journal/recur/account"
	"github.com/recur-journal/recur/notify"
	"github.com/recur-journal/recur/store"
)

// Review is a week of the journal told from its patterns.
type Review struct {
	Week     string          `json:"week" doc:"The ISO week, YYYY-Www."`
	From     string          `json:"from" format:"date" doc:"Its Monday, in the user's timezone."`
	To       string          `json:"to" format:"date" doc:"Its Sunday."`
	Prev     string          `json:"prev" doc:"The week before."`
	Next     *string         `json:"next" nullable:"true" doc:"The week after; null while this week is under way."`
	New      []ReviewPattern `json:"new" doc:"Patterns seen this week for the first time."`
	CameBack []ReviewPattern `json:"came_back" doc:"Patterns seen this week and before it."`
	Quiet    []ReviewPattern `json:"quiet" doc:"Patterns seen the week before and not this week."`
	Accepted []ReviewPattern `json:"accepted" doc:"The accepted patterns, with the days seen this week and the week before."`
}

// ReviewPattern is a pattern as a week saw it.
type ReviewPattern struct {
	ID         string `json:"id" format:"uuid"`
	Name       string `json:"name"`
	Kind       string `json:"kind" doc:"trigger, good_behaviour or bad_behaviour."`
	Days       int    `json:"days" minimum:"0" doc:"Days of the week it was seen on."`
	DaysBefore int    `json:"days_before" minimum:"0" doc:"Days of the week before it was seen on."`
}

// ReviewSchedule is the weekday the weekly review is announced on.
type ReviewSchedule struct {
	Weekday *string `json:"weekday" nullable:"true" enum:"monday,tuesday,wednesday,thursday,friday,saturday,sunday" doc:"The weekday review.ready is sent on, from 08:00 in the user's timezone, for the week that holds the day before; null sends none, as at first."`
}

type reviewInput struct {
	Week string `path:"week" pattern:"^[0-9]{4}-W[0-9]{2}$" doc:"An ISO week, YYYY-Www, such as 2026-W11."`
}

func (s *Server) registerReviews() {
	huma.Register(s.api, op(http.MethodGet, "/reviews/{week}", "get-review", "Patterns", "Show the review of a week",
		account.ScopePatternsRead, http.StatusUnauthorized, http.StatusForbidden, http.StatusUnprocessableEntity), s.getReview)
	huma.Register(s.api, op(http.MethodGet, "/review-schedules/me", "get-review-schedule", channelsTag.Name, "Show the weekday of the weekly review",
		account.ScopeSettingsRead, http.StatusUnauthorized, http.StatusForbidden), s.getReviewSchedule)
	huma.Register(s.api, op(http.MethodPut, "/review-schedules/me", "put-review-schedule", channelsTag.Name, "Choose the weekday of the weekly review",
		account.ScopeSettingsWrite, http.StatusUnauthorized, http.StatusForbidden, http.StatusUnprocessableEntity), s.putReviewSchedule)
}

func reviewPatterns(list []notify.ReviewPattern) []ReviewPattern {
	out := make([]ReviewPattern, len(list))
	for i, p := range list {
		out[i] = ReviewPattern{ID: p.ID, Name: p.Name, Kind: p.Kind, Days: p.Days, DaysBefore: p.DaysBefore}
	}
	return out
}

func (s *Server) getReview(ctx context.Context, in *reviewInput) (*struct{ Body Data[Review] }, error) {
	r, err := s.opts.Notifier.Review(ctx, current(ctx).User.ID, in.Week)
	if err != nil {
		return nil, err
	}
	out := Review{Week: r.Week, From: r.From.Format(time.DateOnly), To: r.To.AddDate(0, 0, -1).Format(time.DateOnly), Prev: r.Prev,
		New: reviewPatterns(r.New), CameBack: reviewPatterns(r.CameBack), Quiet: reviewPatterns(r.Quiet), Accepted: reviewPatterns(r.Accepted)}
	if r.Next != "" {
		out.Next = &r.Next
	}
	return one(out), nil
}

func (s *Server) getReviewSchedule(ctx context.Context, _ *struct{}) (*struct{ Body Data[ReviewSchedule] }, error) {
	r, err := s.opts.Store.FindSchedule(ctx, current(ctx).User.ID, store.ScheduleReview)
	if store.ErrorCode(err) == store.ENOTFOUND {
		return one(ReviewSchedule{}), nil
	} else if err != nil {
		return nil, err
	}
	return one(ReviewSchedule{Weekday: &r.At}), nil
}

func (s *Server) putReviewSchedule(ctx context.Context, in *struct{ Body ReviewSchedule }) (*struct{ Body Data[ReviewSchedule] }, error) {
	if err := s.opts.Notifier.SetReviewDay(ctx, current(ctx).User.ID, in.Body.Weekday); err != nil {
		return nil, err
	}
	return one(in.Body), nil
}
