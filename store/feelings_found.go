package store

import (
	"context"
	"database/sql"
	"time"
)

// FoundFeeling is a feeling found in one capture of a user, and when the
// capture occurred.
type FoundFeeling struct {
	CaptureID  string
	OccurredAt time.Time
	Name       string
	Valence    int
}

// FeelingsFound returns the feelings found in the user's captures that
// occurred in [from, to), each feeling once per capture (as an entry shows
// it), oldest capture first.
func (s *Store) FeelingsFound(ctx context.Context, userID string, from, to time.Time) ([]FoundFeeling, error) {
	var out []FoundFeeling
	to = lastStored(to)
	err := s.view(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT DISTINCT cp.id, cp.occurred_at, f.name, f.valence FROM captures cp
			JOIN segments sg ON sg.capture_id = cp.id JOIN segment_tags st ON st.segment_id = sg.id
			JOIN tags t ON t.id = st.tag_id JOIN feelings f ON f.id = t.feeling_id
			WHERE cp.user_id = ? AND cp.occurred_at >= ? AND cp.occurred_at < ?
			ORDER BY cp.occurred_at, cp.id, f.name`, userID, FormatTime(from), FormatTime(to))
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var f FoundFeeling
			if err := rows.Scan(&f.CaptureID, dbTime{&f.OccurredAt}, &f.Name, &f.Valence); err != nil {
				return err
			}
			out = append(out, f)
		}
		return rows.Err()
	})
	return out, err
}
