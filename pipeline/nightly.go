package pipeline

import (
	"context"
	"time"
)

// NightlySchedule is the cron spec of the nightly sweep: every quarter of
// an hour, so that every user's local midnight is met within minutes,
// including in zones 30 or 45 minutes off the hour (India, Nepal, the
// Chatham Islands).
const NightlySchedule = "0,15,30,45 * * * *"

// nightlyDue reports whether a user whose last nightly run was on local
// date last (YYYY-MM-DD, "" for never) is due at now in their zone, and the
// local date to record. A run missed while the server was down is due at
// once; a user whose zone changed is due at the next midnight of the new zone.
func nightlyDue(now time.Time, zone, last string) (bool, string) {
	loc, err := time.LoadLocation(zone)
	if err != nil {
		loc = time.UTC
	}
	today := now.In(loc).Format(time.DateOnly)
	return last < today, today
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
		due, today := nightlyDue(now, u.Timezone, u.NightlyOn)
		if !due {
			continue
		}
		if err := p.opts.Detector.Detect(ctx, u.UserID); err != nil {
			p.opts.Logger.Error("nightly detection", "user_id", u.UserID, "error", err)
			continue
		}
		if err := p.opts.Store.SetNightlyOn(ctx, u.UserID, today); err != nil {
			return n, err
		}
		p.Redescribe(u.UserID)
		n++
	}
	return n, nil
}
