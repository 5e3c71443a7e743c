package store

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

// Reminder is a user's daily reminder to write.
type Reminder struct {
	UserID     string
	DailyAt    string // HH:MM in the user's timezone
	RemindedOn string // the local date last dealt with, YYYY-MM-DD; empty before the first
}

// Validate checks DailyAt is a time of day written HH:MM. It returns
// EINVALID naming "daily_at".
func (r *Reminder) Validate() error {
	if _, err := time.Parse("15:04", r.DailyAt); err != nil || len(r.DailyAt) != 5 {
		return Invalid("daily_at", "The time must be written HH:MM, from 00:00 to 23:59, such as 20:30.")
	}
	return nil
}

// FindReminder returns the user's reminder, or ENOTFOUND when they have
// none (reminders are off).
func (s *Store) FindReminder(ctx context.Context, userID string) (*Reminder, error) {
	r := Reminder{UserID: userID}
	err := s.view(ctx, func(tx *sql.Tx) error {
		return tx.QueryRowContext(ctx, `SELECT daily_at, reminded_on FROM reminders WHERE user_id = ?`, userID).Scan(&r.DailyAt, &r.RemindedOn)
	})
	if errors.Is(err, sql.ErrNoRows) {
		return nil, NotFound("Reminder")
	}
	return &r, err
}

// PutReminder sets the user's reminder, or turns it off when r is nil. It
// returns EINVALID.
func (s *Store) PutReminder(ctx context.Context, userID string, r *Reminder) error {
	if r == nil {
		return s.update(ctx, func(tx *sql.Tx) error {
			_, err := tx.ExecContext(ctx, `DELETE FROM reminders WHERE user_id = ?`, userID)
			return err
		})
	}
	if err := r.Validate(); err != nil {
		return err
	}
	return s.update(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO reminders (user_id, daily_at, reminded_on, updated_at) VALUES (?, ?, ?, ?)
			ON CONFLICT (user_id) DO UPDATE SET daily_at = excluded.daily_at, reminded_on = excluded.reminded_on, updated_at = excluded.updated_at`,
			userID, r.DailyAt, r.RemindedOn, FormatTime(s.Now()))
		return err
	})
}

// Reminders returns every reminder that is on.
func (s *Store) Reminders(ctx context.Context) ([]Reminder, error) {
	var out []Reminder
	err := s.view(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT user_id, daily_at, reminded_on FROM reminders ORDER BY user_id`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var r Reminder
			if err := rows.Scan(&r.UserID, &r.DailyAt, &r.RemindedOn); err != nil {
				return err
			}
			out = append(out, r)
		}
		return rows.Err()
	})
	return out, err
}

// MarkReminded notes that the user's reminder of the local date was dealt
// with, and reports whether it was not already: of two callers, one wins.
func (s *Store) MarkReminded(ctx context.Context, userID, date string) (bool, error) {
	var won bool
	err := s.update(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE reminders SET reminded_on = ?, updated_at = ? WHERE user_id = ? AND reminded_on < ?`,
			date, FormatTime(s.Now()), userID, date)
		if err != nil {
			return err
		}
		n, _ := res.RowsAffected()
		won = n == 1
		return nil
	})
	return won, err
}

// WroteBetween reports whether the user wrote a capture in [from, to), or
// one about that time.
func (s *Store) WroteBetween(ctx context.Context, userID string, from, to time.Time) (bool, error) {
	var n int
	err := s.view(ctx, func(tx *sql.Tx) error {
		f, t := FormatTime(from), FormatTime(to)
		return tx.QueryRowContext(ctx, `SELECT count(*) FROM captures WHERE user_id = ? AND
			((occurred_at >= ? AND occurred_at < ?) OR (created_at >= ? AND created_at < ?))`, userID, f, t, f, t).Scan(&n)
	})
	return n > 0, err
}
