package store

import (
	"context"
	"database/sql"
	"strings"
)

// Findings is what the analysis found in one capture, as a list of
// entries shows it: its feelings and the patterns it belongs to.
type Findings struct {
	Feelings []Feeling
	Patterns []PatternRef
}

// FindingsOf returns the findings of the user's captures with the given
// ids, by capture id, in two queries whatever the number of captures: one
// for the feelings, one for the patterns. Rejected patterns are left out;
// a capture with no findings has no key.
func (s *Store) FindingsOf(ctx context.Context, userID string, captureIDs []string) (map[string]Findings, error) {
	out := map[string]Findings{}
	if len(captureIDs) == 0 {
		return out, nil
	}
	marks := strings.TrimSuffix(strings.Repeat("?, ", len(captureIDs)), ", ")
	args := make([]any, 0, len(captureIDs)+1)
	args = append(args, userID)
	for _, id := range captureIDs {
		args = append(args, id)
	}
	err := s.view(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT cp.id, f.id, f.name, f.valence, f.energy, min(sg.position * 1000 + st.position) AS first
			FROM captures cp JOIN segments sg ON sg.capture_id = cp.id JOIN segment_tags st ON st.segment_id = sg.id
			JOIN tags t ON t.id = st.tag_id JOIN feelings f ON f.id = t.feeling_id
			WHERE cp.user_id = ? AND cp.id IN (`+marks+`)
			GROUP BY cp.id, f.id ORDER BY cp.id, first`, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id string
			var f Feeling
			var first int
			if err := rows.Scan(&id, &f.ID, &f.Name, &f.Valence, &f.Energy, &first); err != nil {
				return err
			}
			fs := out[id]
			fs.Feelings = append(fs.Feelings, f)
			out[id] = fs
		}
		if err := rows.Err(); err != nil {
			return err
		}
		rows, err = tx.QueryContext(ctx, `SELECT DISTINCT cp.id, p.id, c.name, p.sentiment, p.impact
			FROM captures cp JOIN segments sg ON sg.capture_id = cp.id JOIN segment_tags st ON st.segment_id = sg.id
			JOIN tags t ON t.id = st.tag_id JOIN patterns p ON p.category_id = t.category_id JOIN categories c ON c.id = p.category_id
			WHERE cp.user_id = ? AND cp.id IN (`+marks+`) AND p.status != 'rejected'
			ORDER BY cp.id, c.name`, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id string
			var p PatternRef
			if err := rows.Scan(&id, &p.ID, &p.Name, &p.Sentiment, &p.Impact); err != nil {
				return err
			}
			fs := out[id]
			fs.Patterns = append(fs.Patterns, p)
			out[id] = fs
		}
		return rows.Err()
	})
	return out, err
}
