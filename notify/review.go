package notify

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/recur-journal/recur/store"
)

// ReviewHour is the local hour from which the weekly review is announced
// on the user's chosen weekday.
const ReviewHour = 8

// Review is a week of the user's journal (an ISO week, Monday to Sunday in
// their timezone) told from the patterns Recur already found: no model is
// asked.
type Review struct {
	Week     string          // YYYY-Www
	From, To time.Time       // local midnight of its Monday and of the next
	Prev     string          // the week before
	Next     string          // the week after; empty when it has not begun
	New      []ReviewPattern // seen this week for the first time
	CameBack []ReviewPattern // seen this week, and before it
	Quiet    []ReviewPattern // seen the week before, not this week
	Accepted []ReviewPattern // the accepted patterns, with both weeks' days
}

// ReviewPattern is a pattern as a week saw it.
type ReviewPattern struct {
	ID, Name, Kind string
	Days           int // days of the week it was seen on
	DaysBefore     int // days of the week before
}

// ReviewData is the data of review.ready.
type ReviewData struct {
	Week string `json:"week"` // YYYY-Www
	Path string `json:"path"` // the review's page, such as /review/2026-W11
}

// ParseWeek reads an ISO week, YYYY-Www, and returns the local midnight of
// its Monday in loc. It returns EINVALID naming week.
func ParseWeek(week string, loc *time.Location) (time.Time, error) {
	var y, w int
	bad := store.Invalid("week", "The week must be an ISO week written YYYY-Www, such as 2026-W11.")
	if n, err := fmt.Sscanf(week, "%4d-W%2d", &y, &w); err != nil || n != 2 || len(week) != 8 || y < 1 || w < 1 {
		return time.Time{}, bad
	}
	jan4 := time.Date(y, 1, 4, 0, 0, 0, 0, loc)
	monday := jan4.AddDate(0, 0, -((int(jan4.Weekday())+6)%7)+(w-1)*7)
	if gy, gw := monday.ISOWeek(); gy != y || gw != w {
		return time.Time{}, bad
	}
	return monday, nil
}

// WeekOf returns the ISO week t falls in, YYYY-Www.
func WeekOf(t time.Time) string {
	y, w := t.ISOWeek()
	return fmt.Sprintf("%04d-W%02d", y, w)
}

// CurrentWeek returns the ISO week the user is in now.
func (n *Notifier) CurrentWeek(ctx context.Context, userID string) (string, error) {
	loc, err := n.opts.Store.Location(ctx, userID)
	if err != nil {
		return "", err
	}
	return WeekOf(n.opts.Now().In(loc)), nil
}

// Review builds the user's review of the week. It returns EINVALID naming
// week for a week that is not one or has not begun.
func (n *Notifier) Review(ctx context.Context, userID, week string) (*Review, error) {
	loc, err := n.opts.Store.Location(ctx, userID)
	if err != nil {
		return nil, err
	}
	from, err := ParseWeek(week, loc)
	if err != nil {
		return nil, err
	}
	now := n.opts.Now().In(loc)
	if from.After(now) {
		return nil, store.Invalid("week", "The week %s has not begun.", week)
	}
	r := &Review{Week: week, From: from, To: from.AddDate(0, 0, 7), Prev: WeekOf(from.AddDate(0, 0, -7))}
	if r.To.Before(now) || r.To.Equal(now) {
		r.Next = WeekOf(r.To)
	}
	patterns, err := n.opts.Store.AllPatterns(ctx, userID, nil)
	if err != nil {
		return nil, err
	}
	seen, err := n.opts.Store.PatternSightings(ctx, userID, from.AddDate(0, 0, -7), r.To)
	if err != nil {
		return nil, err
	}
	first, err := n.opts.Store.PatternsFirstSeen(ctx, userID)
	if err != nil {
		return nil, err
	}
	days := map[string]map[string]bool{} // pattern id -> local dates; the week before's are marked "-"
	for _, s := range seen {
		if days[s.PatternID] == nil {
			days[s.PatternID] = map[string]bool{}
		}
		date := s.OccurredAt.In(loc).Format(time.DateOnly)
		if s.OccurredAt.Before(from) {
			date = "-" + date
		}
		days[s.PatternID][date] = true
	}
	for _, p := range patterns {
		rp := ReviewPattern{ID: p.ID, Name: p.Name, Kind: string(p.Kind)}
		for d := range days[p.ID] {
			if strings.HasPrefix(d, "-") {
				rp.DaysBefore++
			} else {
				rp.Days++
			}
		}
		switch {
		case rp.Days > 0 && !first[p.ID].Before(from):
			r.New = append(r.New, rp)
		case rp.Days > 0:
			r.CameBack = append(r.CameBack, rp)
		case rp.Days == 0 && rp.DaysBefore > 0:
			r.Quiet = append(r.Quiet, rp)
		}
		if p.Status == store.PatternAccepted {
			r.Accepted = append(r.Accepted, rp)
		}
	}
	for _, list := range [][]ReviewPattern{r.New, r.CameBack, r.Quiet, r.Accepted} {
		slices.SortStableFunc(list, func(a, b ReviewPattern) int { return b.Days - a.Days })
	}
	return r, nil
}

// SetReviewDay announces the user's weekly review on weekday (monday to
// sunday) from now on, or stops announcing it when weekday is nil. It
// returns EINVALID naming weekday.
func (n *Notifier) SetReviewDay(ctx context.Context, userID string, weekday *string) error {
	r := &store.Schedule{UserID: userID, Kind: store.ScheduleReview}
	if weekday != nil {
		r.At = strings.ToLower(*weekday)
		if r.At == "" {
			return store.Invalid("weekday", "The weekday must be monday to sunday, or null.")
		}
	}
	return n.opts.Store.PutSchedule(ctx, r)
}

// AnnounceReviews sends review.ready to each user whose chosen weekday it
// is, from ReviewHour local time, once: for the week that holds the day
// before (so a Monday announces the week just ended). It returns how many
// it announced.
func (n *Notifier) AnnounceReviews(ctx context.Context) (int, error) {
	list, err := n.opts.Store.Schedules(ctx, store.ScheduleReview)
	if err != nil {
		return 0, err
	}
	sent := 0
	for _, r := range list {
		loc, err := n.opts.Store.Location(ctx, r.UserID)
		if err != nil {
			return sent, err
		}
		local := n.opts.Now().In(loc)
		if day, _ := store.ParseWeekday(r.At); local.Weekday() != day || local.Hour() < ReviewHour {
			continue
		}
		week := WeekOf(local.AddDate(0, 0, -1))
		if r.Last >= week {
			continue
		}
		won, err := n.opts.Store.MarkSchedule(ctx, r.UserID, store.ScheduleReview, week)
		if err != nil {
			return sent, err
		}
		if won {
			n.Emit(ctx, r.UserID, ReviewReady, ReviewData{Week: week, Path: "/review/" + week})
			sent++
		}
	}
	return sent, nil
}
