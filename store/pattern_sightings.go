package store

import (
	"context"
	"database/sql"
	"time"
)

// AllPatterns returns every listed pattern of the user in the state (nil
// for open and closed), read a thousand at a time.
func (s *Store) AllPatterns(ctx context.Context, userID string, state *PatternState) ([]Pattern, error) {
	var out []Pattern
	for page := 1; ; page++ {
		list, total, err := s.FindPatterns(ctx, userID, PatternFilter{State: state, Page: Page{Page: page, Limit: 1000}})
		if err != nil {
			return nil, err
		}
		out = append(out, list...)
		if len(list) == 0 || len(out) >= total {
			return out, nil
		}
	}
}

// patternCaptures joins the user's patterns that are not rejected to the
// captures they were seen in; it takes the user's id, PatternRejected and
// the user's id again.
const patternCaptures = ` FROM patterns p
	JOIN tags t ON t.category_id = p.category_id
	JOIN segment_tags st ON st.tag_id = t.id
	JOIN segments sg ON sg.id = st.segment_id
	JOIN captures c ON c.id = sg.capture_id
	WHERE p.user_id = ? AND p.status != ? AND c.user_id = ?`

// PatternsFirstSeen returns when each of the user's patterns that is not
// rejected was first seen (the earliest occurred_at of its captures), by
// pattern id.
func (s *Store) PatternsFirstSeen(ctx context.Context, userID string) (map[string]time.Time, error) {
	out := map[string]time.Time{}
	err := s.view(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT p.id, min(c.occurred_at)`+patternCaptures+` GROUP BY p.id`, userID, PatternRejected, userID)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id string
			var first time.Time
			if err := rows.Scan(&id, dbTime{&first}); err != nil {
				return err
			}
			out[id] = first
		}
		return rows.Err()
	})
	return out, err
}

// PatternSighting is a capture a listed pattern of the user was seen in.
type PatternSighting struct {
	PatternID  string
	OccurredAt time.Time
}

// PatternSightings returns when each of the user's patterns that is not
// rejected was seen between from and to (occurred_at), one row a capture.
func (s *Store) PatternSightings(ctx context.Context, userID string, from, to time.Time) ([]PatternSighting, error) {
	var out []PatternSighting
	err := s.view(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT DISTINCT p.id, c.id, c.occurred_at`+patternCaptures+` AND c.occurred_at >= ? AND c.occurred_at < ?`,
			userID, PatternRejected, userID, FormatTime(from), FormatTime(to))
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var ps PatternSighting
			var captureID string
			if err := rows.Scan(&ps.PatternID, &captureID, dbTime{&ps.OccurredAt}); err != nil {
				return err
			}
			out = append(out, ps)
		}
		return rows.Err()
	})
	return out, err
}
