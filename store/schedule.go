package store

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"
)

// Schedule kinds.
const (
	ScheduleReminder = "reminder" // the daily reminder to write; At is HH:MM, Last a local date
	ScheduleReview   = "review"   // the weekly review's announcement; At is a weekday (monday), Last an ISO week
)

// Schedule is something a user asked to be sent at a time of their own,
// in their timezone.
type Schedule struct {
	UserID string
	Kind   string // ScheduleReminder or ScheduleReview
	At     string
	Last   string // what was last dealt with; empty before the first
}

// Validate checks At fits the kind. It returns EINVALID naming daily_at
// for a reminder or weekday for a review.
func (r *Schedule) Validate() error {
	switch r.Kind {
	case ScheduleReminder:
		if _, err := time.Parse("15:04", r.At); err != nil || len(r.At) != 5 {
			return Invalid("daily_at", "The time must be written HH:MM, from 00:00 to 23:59, such as 20:30.")
		}
	case ScheduleReview:
		if _, ok := ParseWeekday(r.At); !ok {
			return Invalid("weekday", "The weekday must be monday to sunday, or null.")
		}
	default:
		return Invalid("kind", "The kind must be reminder or review.")
	}
	return nil
}

// ParseWeekday reads a weekday's English name, such as monday.
func ParseWeekday(name string) (time.Weekday, bool) {
	for d := time.Sunday; d <= time.Saturday; d++ {
		if strings.EqualFold(d.String(), name) {
			return d, true
		}
	}
	return 0, false
}

// FindSchedule returns the user's schedule of the kind, or ENOTFOUND when
// they have none (it is off).
func (s *Store) FindSchedule(ctx context.Context, userID, kind string) (*Schedule, error) {
	r := Schedule{UserID: userID, Kind: kind}
	err := s.view(ctx, func(tx *sql.Tx) error {
		return tx.QueryRowContext(ctx, `SELECT at, last FROM schedules WHERE user_id = ? AND kind = ?`, userID, kind).Scan(&r.At, &r.Last)
	})
	if errors.Is(err, sql.ErrNoRows) {
		return nil, NotFound("Schedule")
	}
	return &r, err
}

// PutSchedule sets r, or removes the user's schedule of the kind when
// r.At is empty. It returns EINVALID.
func (s *Store) PutSchedule(ctx context.Context, r *Schedule) error {
	if r.At == "" {
		return s.update(ctx, func(tx *sql.Tx) error {
			_, err := tx.ExecContext(ctx, `DELETE FROM schedules WHERE user_id = ? AND kind = ?`, r.UserID, r.Kind)
			return err
		})
	}
	if err := r.Validate(); err != nil {
		return err
	}
	return s.update(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO schedules (user_id, kind, at, last, updated_at) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (user_id, kind) DO UPDATE SET at = excluded.at, last = excluded.last, updated_at = excluded.updated_at`,
			r.UserID, r.Kind, r.At, r.Last, FormatTime(s.Now()))
		return err
	})
}

// Schedules returns every schedule of the kind.
func (s *Store) Schedules(ctx context.Context, kind string) ([]Schedule, error) {
	var out []Schedule
	err := s.view(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT user_id, at, last FROM schedules WHERE kind = ? ORDER BY user_id`, kind)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			r := Schedule{Kind: kind}
			if err := rows.Scan(&r.UserID, &r.At, &r.Last); err != nil {
				return err
			}
			out = append(out, r)
		}
		return rows.Err()
	})
	return out, err
}

// MarkSchedule notes last (a later date or week than the one noted) as
// dealt with, and reports whether it was not already: of two callers, one
// wins.
func (s *Store) MarkSchedule(ctx context.Context, userID, kind, last string) (bool, error) {
	var won bool
	err := s.update(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE schedules SET last = ?, updated_at = ? WHERE user_id = ? AND kind = ? AND last < ?`,
			last, FormatTime(s.Now()), userID, kind, last)
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
