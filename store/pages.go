package store

import (
	"context"
	"database/sql"
	"strings"
	"time"
)

// This file holds the few queries the web pages need before the journal
// package provides them; at the merge, journal's FTS5 search and
// journal.UpdateCapture replace SearchCapturesLike and ReviseCapture.

// SearchCapturesLike returns a page of the user's captures whose original or
// translated text contains q (case-insensitive for ASCII), newest first, and
// how many match. A plain LIKE scan; FTS5 replaces it.
func (s *Store) SearchCapturesLike(ctx context.Context, userID, q string, p Page) ([]Capture, int, error) {
	pattern := "%" + strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`).Replace(q) + "%"
	where := `user_id = ? AND (original LIKE ? ESCAPE '\' OR translated LIKE ? ESCAPE '\')`
	var list []Capture
	var total int
	err := s.view(ctx, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM captures WHERE `+where, userID, pattern, pattern).Scan(&total); err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, `SELECT `+captureColumns+` FROM captures WHERE `+where+`
			ORDER BY occurred_at DESC, id DESC LIMIT ? OFFSET ?`, userID, pattern, pattern, p.Limit, p.Offset())
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			c, err := scanCapture(rows)
			if err != nil {
				return err
			}
			list = append(list, *c)
		}
		return rows.Err()
	})
	return list, total, err
}

// ReviseCapture sets a capture's text and time and queues it for analysis
// again; its old analysis stays until the new run commits (a run in progress
// finds the capture no longer processing and is dropped). It returns
// ENOTFOUND for another user's capture and EINVALID for bad input.
func (s *Store) ReviseCapture(ctx context.Context, userID, id, text string, occurredAt time.Time) (*Capture, error) {
	now := s.Now()
	c := &Capture{Original: text, OccurredAt: occurredAt.UTC().Truncate(time.Microsecond)}
	if err := c.Validate(now); err != nil {
		return nil, err
	}
	err := s.update(ctx, func(tx *sql.Tx) error {
		stamp := FormatTime(now)
		res, err := tx.ExecContext(ctx, `UPDATE captures SET original = ?, occurred_at = ?, status = 'queued', attempts = 0,
			background = 0, available_at = ?, updated_at = ? WHERE id = ? AND user_id = ?`,
			text, FormatTime(c.OccurredAt), stamp, stamp, id, userID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return NotFound("Capture")
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s.FindCapture(ctx, userID, id)
}

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
// captures that occurred in [from, to), for the calendar's year view.
func (s *Store) FeelingValences(ctx context.Context, userID string, from, to time.Time) ([]TimedValence, error) {
	var out []TimedValence
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
