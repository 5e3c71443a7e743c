package store

import (
	"context"
	"database/sql"
	"strings"
	"time"
)

// DescriptionBasis is what a pattern's description was written on: how
// many days its loop (or the pattern alone) had been seen on, and when.
// Days is 0 and At nil for a description written before Recur kept them.
type DescriptionBasis struct {
	Days int
	At   *time.Time
}

// DescriptionBases returns the basis of the description of each of the
// user's described patterns, rejected ones excepted, by pattern id.
func (s *Store) DescriptionBases(ctx context.Context, userID string) (map[string]DescriptionBasis, error) {
	out := map[string]DescriptionBasis{}
	err := s.view(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT id, description_days, described_at FROM patterns
			WHERE user_id = ? AND status != 'rejected' AND description != ''`, userID)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id string
			var b DescriptionBasis
			if err := rows.Scan(&id, &b.Days, dbNullTime{&b.At}); err != nil {
				return err
			}
			out[id] = b
		}
		return rows.Err()
	})
	return out, err
}

// SetPatternDescription stores a pattern's description, its language and
// the number of days it was written on, as written now.
func (s *Store) SetPatternDescription(ctx context.Context, id, description, locale string, days int) error {
	return s.update(ctx, func(tx *sql.Tx) error {
		now := FormatTime(s.Now())
		_, err := tx.ExecContext(ctx, `UPDATE patterns SET description = ?, description_locale = ?, description_days = ?,
			described_at = ?, updated_at = ? WHERE id = ?`, strings.TrimSpace(description), locale, days, now, now, id)
		return err
	})
}

// SetDescriptionDays records the days a description stands on without
// writing it again: for one written before Recur kept them, so that its
// growth is measured from now.
func (s *Store) SetDescriptionDays(ctx context.Context, id string, days int) error {
	return s.update(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE patterns SET description_days = ?, described_at = coalesce(described_at, ?) WHERE id = ?`,
			days, FormatTime(s.Now()), id)
		return err
	})
}
