package store

import (
	"context"
	"database/sql"
	"time"
)

// PatternRef is a pattern as the timeline names it.
type PatternRef struct {
	ID, Name, Sentiment, Impact string
}

// TimelineCapture is a capture and the patterns it belongs to.
type TimelineCapture struct {
	CaptureRef
	Patterns []PatternRef
}

// Timeline returns the user's captures that occurred in [from, to), oldest
// first, each with the patterns (rejected ones left out) its segments
// belong to.
func (s *Store) Timeline(ctx context.Context, userID string, from, to time.Time) ([]TimelineCapture, error) {
	var out []TimelineCapture
	to = lastStored(to)
	err := s.view(ctx, func(tx *sql.Tx) error {
		args := []any{userID, FormatTime(from), FormatTime(to)}
		refs, err := captureRefs(ctx, tx, `SELECT id, status, occurred_at FROM captures
			WHERE user_id = ? AND occurred_at >= ? AND occurred_at < ? ORDER BY occurred_at, id`, args...)
		if err != nil {
			return err
		}
		index := map[string]int{}
		for _, c := range refs {
			index[c.ID] = len(out)
			out = append(out, TimelineCapture{CaptureRef: c})
		}
		rows, err := tx.QueryContext(ctx, `SELECT DISTINCT cp.id, p.id, c.name, p.sentiment, p.impact
			FROM captures cp JOIN segments sg ON sg.capture_id = cp.id JOIN segment_tags st ON st.segment_id = sg.id
			JOIN tags t ON t.id = st.tag_id JOIN patterns p ON p.category_id = t.category_id JOIN categories c ON c.id = p.category_id
			WHERE cp.user_id = ? AND cp.occurred_at >= ? AND cp.occurred_at < ? AND p.status != 'rejected' AND `+patternSegment+`
			ORDER BY cp.id, c.name`, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var captureID string
			var p PatternRef
			if err := rows.Scan(&captureID, &p.ID, &p.Name, &p.Sentiment, &p.Impact); err != nil {
				return err
			}
			i := index[captureID]
			out[i].Patterns = append(out[i].Patterns, p)
		}
		return rows.Err()
	})
	return out, err
}

// Years a date or time may fall in: four digits, as the stored form needs.
const (
	MinYear = 1
	MaxYear = 9999
)

// StartOfDay returns the first instant of the local date y-m-d in loc: its
// midnight or, where a daylight-saving change skips midnight (Santiago,
// 6 September 2026: 00:00 becomes 01:00), the moment the clocks jump to.
func StartOfDay(y int, m time.Month, d int, loc *time.Location) time.Time {
	t := time.Date(y, m, d, 0, 0, 0, 0, loc)
	if ty, tm, td := t.Date(); ty == y && tm == m && td == d {
		return t
	}
	// Midnight does not exist: t lies just before the gap, in the zone that
	// the jump ends.
	if _, end := t.ZoneBounds(); !end.IsZero() {
		return end
	}
	return t
}

// lastStored brings an end of a span back into the years a stored time can
// have: stored times have four-digit years, so past the last one, everything
// is before, but a five-digit year would compare as text before them all.
func lastStored(to time.Time) time.Time {
	if last := time.Date(MaxYear, 12, 31, 23, 59, 59, 999999000, time.UTC); to.After(last) {
		return last
	}
	return to
}
