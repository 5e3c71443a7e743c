package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"strings"
	"time"
)

// Facts is what detection counts over for one user.
type Facts struct {
	Captures     []CaptureRef // processed captures
	Segments     []SegmentFact
	Categories   []Category
	Feelings     []Feeling
	Patterns     []PatternState
	Correlations []CorrelationState // the reviewed ones
}

// SegmentFact is a segment of a processed capture and its tags, in order.
type SegmentFact struct {
	ID         string
	CaptureID  string
	OccurredAt time.Time
	Tags       []TagFact
}

// TagFact is a tag as detection sees it.
type TagFact struct {
	ID, Type, Name, CategoryID, FeelingID string
}

// PatternState is a stored pattern's state before a detection run.
type PatternState struct {
	ID, CategoryID, Status, Sentiment string
	ClosedAt                          *time.Time
	LinksHash                         string // see DetectedPattern.LinksHash
}

// CorrelationState is a reviewed correlation.
type CorrelationState struct {
	PatternID, TagID, Status string
}

// DetectionFacts loads, in one snapshot, what detection needs of the user.
func (s *Store) DetectionFacts(ctx context.Context, userID string) (*Facts, error) {
	f := &Facts{}
	err := s.view(ctx, func(tx *sql.Tx) error {
		var err error
		f.Captures, err = captureRefs(ctx, tx, `SELECT id, status, occurred_at FROM captures WHERE user_id = ? AND status = 'processed'`, userID)
		if err != nil {
			return err
		}
		var rows *sql.Rows

		// The user's tags, then each segment with its tag ids in one row
		// (segments.tag_ids): one row a segment rather than a row a tag keeps
		// ten years of journal quick to read.
		tags := map[string]TagFact{}
		rows, err = tx.QueryContext(ctx, `SELECT id, type, name, coalesce(category_id, ''), coalesce(feeling_id, '') FROM tags WHERE user_id = ?`, userID)
		if err != nil {
			return err
		}
		for rows.Next() {
			var t TagFact
			if err := rows.Scan(&t.ID, &t.Type, &t.Name, &t.CategoryID, &t.FeelingID); err != nil {
				rows.Close()
				return err
			}
			tags[t.ID] = t
		}
		rows.Close()
		rows, err = tx.QueryContext(ctx, `SELECT sg.id, sg.capture_id, c.occurred_at, sg.tag_ids
			FROM captures c JOIN segments sg ON sg.capture_id = c.id
			WHERE c.user_id = ? AND c.status = 'processed' AND sg.tag_ids != ''`, userID)
		if err != nil {
			return err
		}
		var at, last, ids string
		var occurred time.Time
		for rows.Next() {
			var sg SegmentFact
			if err := rows.Scan(&sg.ID, &sg.CaptureID, &at, &ids); err != nil {
				rows.Close()
				return err
			}
			if at != last { // segments of one capture share its time
				if occurred, err = ParseTime(at); err != nil {
					rows.Close()
					return err
				}
				last = at
			}
			sg.OccurredAt = occurred
			for id := range strings.SplitSeq(ids, ",") {
				sg.Tags = append(sg.Tags, tags[id])
			}
			f.Segments = append(f.Segments, sg)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}

		rows, err = tx.QueryContext(ctx, `SELECT id, user_id, kind, name, rejected_at IS NOT NULL FROM categories WHERE user_id = ?`, userID)
		if err != nil {
			return err
		}
		for rows.Next() {
			var c Category
			if err := rows.Scan(&c.ID, &c.UserID, &c.Kind, &c.Name, &c.Rejected); err != nil {
				rows.Close()
				return err
			}
			f.Categories = append(f.Categories, c)
		}
		rows.Close()

		rows, err = tx.QueryContext(ctx, `SELECT id, name, valence, energy FROM feelings`)
		if err != nil {
			return err
		}
		for rows.Next() {
			var fl Feeling
			if err := rows.Scan(&fl.ID, &fl.Name, &fl.Valence, &fl.Energy); err != nil {
				rows.Close()
				return err
			}
			f.Feelings = append(f.Feelings, fl)
		}
		rows.Close()

		rows, err = tx.QueryContext(ctx, `SELECT id, category_id, status, sentiment, closed_at, links_hash FROM patterns WHERE user_id = ?`, userID)
		if err != nil {
			return err
		}
		for rows.Next() {
			var p PatternState
			if err := rows.Scan(&p.ID, &p.CategoryID, &p.Status, &p.Sentiment, dbNullTime{&p.ClosedAt}, &p.LinksHash); err != nil {
				rows.Close()
				return err
			}
			f.Patterns = append(f.Patterns, p)
		}
		rows.Close()

		rows, err = tx.QueryContext(ctx, `SELECT co.pattern_id, co.tag_id, co.status FROM correlations co JOIN patterns p ON p.id = co.pattern_id
			WHERE p.user_id = ? AND co.status != 'detected'`, userID)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var c CorrelationState
			if err := rows.Scan(&c.PatternID, &c.TagID, &c.Status); err != nil {
				return err
			}
			f.Correlations = append(f.Correlations, c)
		}
		return rows.Err()
	})
	return f, err
}

// DetectedPattern is a pattern as a detection run found it; ID is empty for a new one.
type DetectedPattern struct {
	ID            string
	CategoryID    string
	Sentiment     string
	Impact        string
	Urgent        bool
	Feelings      []string
	CapturesCount int
	LastSeen      time.Time
	ClosedAt      *time.Time
	Correlations  []DetectedCorrelation
	Flows         []Flow
	// LinksHash sums up Correlations and Flows; when it equals the stored
	// one, they are not written again.
	LinksHash string
	Loop      DetectedLoop // see links.go
}

// DetectedCorrelation is a correlation as a detection run found it.
type DetectedCorrelation struct {
	TagID  string
	Amount int
	Impact string
}

// SaveDetection writes a detection run's result in one transaction: new
// patterns are made, existing ones updated (their status and description
// kept), correlations updated in place (those still in the top list keep
// their ids, detected ones that dropped out go, reviewed ones stay) and
// flows written anew. A pattern rejected meanwhile is left alone.
func (s *Store) SaveDetection(ctx context.Context, userID string, result []DetectedPattern) error {
	return s.update(ctx, func(tx *sql.Tx) error {
		now := FormatTime(s.Now())
		for _, p := range result {
			feelings, err := json.Marshal(p.Feelings)
			if err != nil {
				return err
			}
			if p.ID == "" {
				p.ID = newID()
				_, err = tx.ExecContext(ctx, `INSERT INTO patterns (id, user_id, category_id, sentiment, impact, urgent, feelings, status,
					captures_count, last_detected_at, closed_at, created_at, updated_at)
					VALUES (?, ?, ?, ?, ?, ?, ?, 'detected', ?, ?, ?, ?, ?)
					ON CONFLICT (category_id) DO NOTHING`,
					p.ID, userID, p.CategoryID, p.Sentiment, p.Impact, p.Urgent, string(feelings), p.CapturesCount,
					FormatTime(p.LastSeen), nullTime(p.ClosedAt), now, now)
				if err == nil {
					// A run racing this one may have made it first.
					err = tx.QueryRowContext(ctx, `SELECT id FROM patterns WHERE category_id = ?`, p.CategoryID).Scan(&p.ID)
				}
			} else {
				_, err = tx.ExecContext(ctx, `UPDATE patterns SET sentiment = ?, impact = ?, urgent = ?, feelings = ?, captures_count = ?,
					last_detected_at = coalesce(?, last_detected_at), closed_at = ?, updated_at = ? WHERE id = ? AND user_id = ? AND status != 'rejected'`,
					p.Sentiment, p.Impact, p.Urgent, string(feelings), p.CapturesCount, lastSeen(p), nullTime(p.ClosedAt), now, p.ID, userID)
			}
			if err != nil {
				return err
			}
			if err := saveLinks(ctx, tx, p, now); err != nil {
				return err
			}
		}
		return saveLoops(ctx, tx, userID, result)
	})
}

// lastSeen is NULL, keeping the stored time, for a pattern no capture shows any more.
func lastSeen(p DetectedPattern) any {
	if p.LastSeen.IsZero() {
		return nil
	}
	return FormatTime(p.LastSeen)
}

// saveLinks brings a pattern's detected correlations up to date and writes
// its flows anew, unless they are the ones stored already.
func saveLinks(ctx context.Context, tx *sql.Tx, p DetectedPattern, now string) error {
	var status, hash string
	if err := tx.QueryRowContext(ctx, `SELECT status, links_hash FROM patterns WHERE id = ?`, p.ID).Scan(&status, &hash); err != nil {
		return err
	}
	if status == PatternRejected || (hash == p.LinksHash && hash != "") {
		return nil
	}
	if _, err := tx.ExecContext(ctx, `UPDATE patterns SET links_hash = ? WHERE id = ?`, p.LinksHash, p.ID); err != nil {
		return err
	}
	// A correlation that stays in the top list keeps its row, and so its id:
	// a client that read it a moment ago can still review it. Only detected
	// ones that dropped out go; reviewed ones stay (detection leaves rejected
	// ones out and keeps accepted ones in its result).
	keep := make([]string, len(p.Correlations))
	for i, c := range p.Correlations {
		keep[i] = c.TagID
	}
	tags, err := json.Marshal(keep)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM correlations WHERE pattern_id = ? AND status = 'detected'
		AND tag_id NOT IN (SELECT value FROM json_each(?))`, p.ID, string(tags)); err != nil {
		return err
	}
	for _, c := range p.Correlations {
		if _, err := tx.ExecContext(ctx, `INSERT INTO correlations (id, pattern_id, tag_id, amount, impact, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (pattern_id, tag_id) DO UPDATE SET amount = excluded.amount, impact = excluded.impact, updated_at = excluded.updated_at`,
			newID(), p.ID, c.TagID, c.Amount, c.Impact, now, now); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM flows WHERE pattern_id = ?`, p.ID); err != nil {
		return err
	}
	for _, f := range p.Flows {
		if _, err := tx.ExecContext(ctx, `INSERT INTO flows (id, pattern_id, segment_id, trigger, feeling, behaviour) VALUES (?, ?, ?, ?, ?, ?)`,
			flowID(p.ID, f.SegmentID), p.ID, f.SegmentID, f.Trigger, f.Feeling, f.Behaviour); err != nil {
			return err
		}
	}
	return nil
}
