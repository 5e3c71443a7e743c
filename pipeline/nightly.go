package pipeline

import (
	"context"
	"time"

	"github.com/recur-journal/recur/store"
)

// NightlySchedule is the cron spec of the nightly sweep: every quarter of
// an hour, so that every user's local midnight is met within minutes,
// including in zones 30 or 45 minutes off the hour (India, Nepal, the
// Chatham Islands).
const NightlySchedule = "0,15,30,45 * * * *"

// nightlyDue reports whether a user whose last nightly run was last is due
// at now in their zone: when the local day that now falls in began after
// that run. last is the UTC time of the run, "" for never, or, as earlier
// versions wrote it, the local date of the run.
//
// Comparing instants rather than local dates keeps a zone change honest: a
// user who moves west meets their new zone's next midnight, though its date
// is one the old zone had already run on; a user who moves east is due at
// once when the new zone's day began after the last run.
func nightlyDue(now time.Time, zone, last string) bool {
	loc, err := time.LoadLocation(zone)
	if err != nil {
		loc = time.UTC
	}
	y, m, d := now.In(loc).Date()
	dayStart := store.StartOfDay(y, m, d, loc)
	if last == "" {
		return true
	}
	ran, err := store.ParseTime(last)
	if err != nil {
		day, err := time.Parse(time.DateOnly, last)
		if err != nil {
			return true
		}
		ran = store.StartOfDay(day.Year(), day.Month(), day.Day(), loc)
	}
	return ran.Before(dayStart)
}

// Nightly runs detection for every user whose local midnight has passed
// since their last nightly run, then has their descriptions written. It
// returns how many users it ran for.
func (p *Pipeline) Nightly(ctx context.Context) (int, error) {
	users, err := p.opts.Store.NightlyStates(ctx)
	if err != nil {
		return 0, err
	}
	now := p.opts.Store.Now()
	n := 0
	for _, u := range users {
		if !nightlyDue(now, u.Timezone, u.NightlyOn) {
			continue
		}
		if err := p.opts.Detector.Detect(ctx, u.UserID); err != nil {
			p.opts.Logger.Error("nightly detection", "user_id", u.UserID, "error", err)
			continue
		}
		if err := p.opts.Store.SetNightlyOn(ctx, u.UserID, now); err != nil {
			return n, err
		}
		p.Redescribe(u.UserID)
		n++
	}
	return n, nil
}
