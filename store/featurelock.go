package store

import (
	"context"
	"database/sql"
	"time"
)

// The counts feature locks rest on. Days are calendar days in the user's
// timezone (loc), cut in Go because SQLite knows no time zones; a journal
// of ten years is a few thousand rows. Only captures that did not fail
// count: queued and processing ones are writing the user did.

// WrittenDays counts the different days, in loc, on which the user wrote a
// capture that did not fail.
func (s *Store) WrittenDays(ctx context.Context, userID string, loc *time.Location) (int, error) {
	var n int
	err := s.view(ctx, func(tx *sql.Tx) error {
		days, err := localDays(ctx, tx, loc, `SELECT occurred_at FROM captures WHERE user_id = ? AND status != 'failed'`, userID)
		n = len(days)
		return err
	})
	return n, err
}

// PatternDays counts, in loc, the days the user wrote on (as WrittenDays)
// and, of those, the days with the pattern: days on which a capture has a
// segment tagged with a tag of the pattern's category and one of its
// feelings (see patternSegment). A rejected pattern
// is still the user's. It returns ENOTFOUND for a pattern that is not the
// user's.
func (s *Store) PatternDays(ctx context.Context, userID, patternID string, loc *time.Location) (with, written int, err error) {
	err = s.view(ctx, func(tx *sql.Tx) error {
		var categoryID string
		err := tx.QueryRowContext(ctx, `SELECT category_id FROM patterns WHERE id = ? AND user_id = ?`, patternID, userID).Scan(&categoryID)
		if err == sql.ErrNoRows {
			return NotFound("Pattern")
		} else if err != nil {
			return err
		}
		all, err := localDays(ctx, tx, loc, `SELECT occurred_at FROM captures WHERE user_id = ? AND status != 'failed'`, userID)
		if err != nil {
			return err
		}
		days, err := localDays(ctx, tx, loc, `SELECT DISTINCT cp.occurred_at FROM captures cp
			JOIN segments sg ON sg.capture_id = cp.id JOIN segment_tags st ON st.segment_id = sg.id JOIN tags t ON t.id = st.tag_id
			JOIN patterns p ON p.category_id = t.category_id
			WHERE p.id = ? AND cp.user_id = ? AND cp.status != 'failed' AND `+patternSegment, patternID, userID)
		with, written = len(days), len(all)
		return err
	})
	return with, written, err
}

// FlowCount counts the flows of the user's pattern or, when patternID is
// empty, of all the user's patterns. It returns ENOTFOUND for a pattern
// that is not the user's.
func (s *Store) FlowCount(ctx context.Context, userID, patternID string) (int, error) {
	var n int
	err := s.view(ctx, func(tx *sql.Tx) error {
		if patternID == "" {
			return tx.QueryRowContext(ctx, `SELECT count(*) FROM flows f JOIN patterns p ON p.id = f.pattern_id WHERE p.user_id = ?`,
				userID).Scan(&n)
		}
		var mine bool
		if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM patterns WHERE id = ? AND user_id = ?)`, patternID, userID).Scan(&mine); err != nil {
			return err
		}
		if !mine {
			return NotFound("Pattern")
		}
		return tx.QueryRowContext(ctx, `SELECT count(*) FROM flows WHERE pattern_id = ?`, patternID).Scan(&n)
	})
	return n, err
}

// localDays runs a query selecting occurred_at and returns the set of
// calendar days, in loc, the times fall on.
func localDays(ctx context.Context, q querier, loc *time.Location, query string, args ...any) (map[string]bool, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	days := map[string]bool{}
	for rows.Next() {
		var t time.Time
		if err := rows.Scan(dbTime{&t}); err != nil {
			return nil, err
		}
		days[t.In(loc).Format(time.DateOnly)] = true
	}
	return days, rows.Err()
}
