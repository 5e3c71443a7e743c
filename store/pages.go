package store

import (
	"context"
	"database/sql"
	"time"
)

// This file holds the queries the web pages need beside the API's: the days
// a tag was written about, for a correlation's sample, and the feelings'
// valences by time, for the timeline's pleasantness of a day.

// TagDays returns how many calendar days, in loc, the user wrote about the tag.
func (s *Store) TagDays(ctx context.Context, userID, tagID string, loc *time.Location) (int, error) {
	var n int
	err := s.view(ctx, func(tx *sql.Tx) error {
		days, err := localDays(ctx, tx, loc, `SELECT DISTINCT cp.occurred_at FROM captures cp JOIN segments sg ON sg.capture_id = cp.id
			JOIN segment_tags st ON st.segment_id = sg.id WHERE st.tag_id = ? AND cp.user_id = ? AND cp.status != 'failed'`, tagID, userID)
		n = len(days)
		return err
	})
	return n, err
}

// TimedValence is the valence of one feeling named in a capture, and when
// the capture occurred.
type TimedValence struct {
	OccurredAt time.Time
	Valence    int
}

// FeelingValences returns the valence of every feeling found in the user's
// captures that occurred in [from, to).
func (s *Store) FeelingValences(ctx context.Context, userID string, from, to time.Time) ([]TimedValence, error) {
	var out []TimedValence
	to = lastStored(to)
	err := s.view(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT cp.occurred_at, f.valence FROM captures cp JOIN segments sg ON sg.capture_id = cp.id
			JOIN segment_tags st ON st.segment_id = sg.id JOIN tags t ON t.id = st.tag_id JOIN feelings f ON f.id = t.feeling_id
			WHERE cp.user_id = ? AND cp.occurred_at >= ? AND cp.occurred_at < ?`, userID, FormatTime(from), FormatTime(to))
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var at string
			var v TimedValence
			if err := rows.Scan(&at, &v.Valence); err != nil {
				return err
			}
			if v.OccurredAt, err = ParseTime(at); err != nil {
				return err
			}
			out = append(out, v)
		}
		return rows.Err()
	})
	return out, err
}
