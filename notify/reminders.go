package notify

import (
	"context"
	"errors"
	"time"

	"github.com/recur-journal/recur/store"
)

// ReminderData is the data of a reminder event.
type ReminderData struct {
	Date string `json:"date"` // the user's local date, YYYY-MM-DD
}

// SetReminder turns the user's daily reminder on at dailyAt (HH:MM, their
// local time), or off when dailyAt is nil. A time already past today
// first reminds tomorrow. It returns EINVALID naming daily_at.
func (n *Notifier) SetReminder(ctx context.Context, userID string, dailyAt *string) error {
	r := &store.Schedule{UserID: userID, Kind: store.ScheduleReminder}
	if dailyAt == nil {
		return n.opts.Store.PutSchedule(ctx, r)
	}
	r.At = *dailyAt
	if err := r.Validate(); err != nil {
		return err
	}
	loc, err := n.opts.Store.Location(ctx, userID)
	if err != nil {
		return err
	}
	if local := n.opts.Now().In(loc); !local.Before(at(local, r.At)) {
		r.Last = local.Format(time.DateOnly)
	}
	return n.opts.Store.PutSchedule(ctx, r)
}

// at is the time of day hhmm on local's date, in local's zone.
func at(local time.Time, hhmm string) time.Time {
	t, _ := time.Parse("15:04", hhmm)
	y, m, d := local.Date()
	return time.Date(y, m, d, t.Hour(), t.Minute(), 0, 0, local.Location())
}

// Remind deals with every reminder that is due by the clock: once a local
// day, from its time on, a reminder event for each user who has not
// written that day; a user who has is skipped that day. It returns how
// many reminders it sent.
func (n *Notifier) Remind(ctx context.Context) (int, error) {
	list, err := n.opts.Store.Schedules(ctx, store.ScheduleReminder)
	if err != nil {
		return 0, err
	}
	sent := 0
	var errs []error
	for _, r := range list {
		ok, err := n.remind(ctx, r)
		if ok {
			sent++
		}
		errs = append(errs, err)
	}
	return sent, errors.Join(errs...)
}

func (n *Notifier) remind(ctx context.Context, r store.Schedule) (bool, error) {
	loc, err := n.opts.Store.Location(ctx, r.UserID)
	if err != nil {
		return false, err
	}
	local := n.opts.Now().In(loc)
	date := local.Format(time.DateOnly)
	if r.Last >= date || local.Before(at(local, r.At)) {
		return false, nil
	}
	y, m, d := local.Date()
	midnight := time.Date(y, m, d, 0, 0, 0, 0, loc)
	wrote, err := n.opts.Store.WroteBetween(ctx, r.UserID, midnight, midnight.AddDate(0, 0, 1))
	if err != nil {
		return false, err
	}
	won, err := n.opts.Store.MarkSchedule(ctx, r.UserID, store.ScheduleReminder, date)
	if err != nil || !won || wrote {
		return false, err
	}
	n.Emit(ctx, r.UserID, Reminder, ReminderData{Date: date})
	return true, nil
}
