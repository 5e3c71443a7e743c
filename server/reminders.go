package server

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/recur-journal/recur/account"
	"github.com/recur-journal/recur/store"
)

// ReminderSetting is the user's daily reminder to write.
type ReminderSetting struct {
	DailyAt *string `json:"daily_at" nullable:"true" pattern:"^([01][0-9]|2[0-3]):[0-5][0-9]$" doc:"The local time (HH:MM, in the user's timezone setting) of the daily reminder; null when reminders are off, as they are at first."`
}

type putReminderInput struct {
	Body ReminderSetting
}

func (s *Server) registerReminders() {
	huma.Register(s.api, op(http.MethodGet, "/reminders/me", "get-reminder", channelsTag.Name, "Show the daily reminder",
		account.ScopeSettingsRead, http.StatusUnauthorized, http.StatusForbidden), s.getReminder)

	o := op(http.MethodPut, "/reminders/me", "put-reminder", channelsTag.Name, "Turn the daily reminder on, move it, or turn it off",
		account.ScopeSettingsWrite, http.StatusUnauthorized, http.StatusForbidden, http.StatusUnprocessableEntity)
	o.Description += " At `daily_at`, in the user's timezone, every webhook and channel that asked for `reminder` events is sent one," +
		" unless the user wrote an entry that day (written then, or about that day). It comes once a local day, within a minute of its time;" +
		" set after its time, it first comes the next day. `null` turns it off."
	huma.Register(s.api, o, s.putReminder)
}

func (s *Server) getReminder(ctx context.Context, _ *struct{}) (*struct{ Body Data[ReminderSetting] }, error) {
	r, err := s.opts.Store.FindSchedule(ctx, current(ctx).User.ID, store.ScheduleReminder)
	if store.ErrorCode(err) == store.ENOTFOUND {
		return one(ReminderSetting{}), nil
	} else if err != nil {
		return nil, err
	}
	return one(ReminderSetting{DailyAt: &r.At}), nil
}

func (s *Server) putReminder(ctx context.Context, in *putReminderInput) (*struct{ Body Data[ReminderSetting] }, error) {
	if err := s.opts.Notifier.SetReminder(ctx, current(ctx).User.ID, in.Body.DailyAt); err != nil {
		return nil, err
	}
	return one(in.Body), nil
}
