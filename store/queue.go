package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// claimNext selects the id of the next ready capture, given the time now.
// The index captures_claim (status, background, available_at, id) serves
// both its WHERE and its ORDER BY, so taking the first row costs the same
// however long the queue is, and no temporary B-tree is sorted while the
// only write connection is held.
const claimNext = `SELECT id FROM captures q WHERE q.status = 'queued' AND q.available_at <= ?
	AND NOT EXISTS (SELECT 1 FROM captures p WHERE p.user_id = q.user_id AND p.status = 'processing')
	ORDER BY q.background, q.available_at, q.id LIMIT 1`

// ClaimCapture moves the oldest ready capture to processing and returns it.
// A capture is ready when it is queued, its backoff has passed and no other
// capture of its user is processing, so one user's runs go one at a time.
// Captures queued by bulk work (an import, a re-analysis) come after the
// rest, so an entry written now is not stuck behind a journal's history.
// It returns ENOTFOUND when nothing is ready.
func (s *Store) ClaimCapture(ctx context.Context) (*Capture, error) {
	var c *Capture
	err := s.updatePrepared(ctx, func(tx preparedTx) error {
		now := FormatTime(s.Now())
		var err error
		c, err = scanCapture(tx.QueryRowContext(ctx, `UPDATE captures SET status = 'processing', updated_at = ?
			WHERE id = (`+claimNext+`)
			RETURNING `+captureColumns, now, now))
		return err
	})
	return c, err
}

// HasReadyCapture reports whether the user has a capture in the queue that
// is ready to be claimed now. The queue's index is walked (+user_id keeps
// SQLite off the user's index, which would walk their whole journal).
func (s *Store) HasReadyCapture(ctx context.Context, userID string) (bool, error) {
	var ready bool
	err := s.read.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM captures WHERE status = 'queued' AND available_at <= ? AND +user_id = ?)`,
		FormatTime(s.Now()), userID).Scan(&ready)
	return ready, err
}

// RequeueProcessing puts every processing capture back in the queue: run at
// start, when any processing capture was left by a run that died with the
// process. It returns how many there were.
func (s *Store) RequeueProcessing(ctx context.Context) (int, error) {
	var n int64
	err := s.update(ctx, func(tx *sql.Tx) error {
		now := FormatTime(s.Now())
		res, err := tx.ExecContext(ctx, `UPDATE captures SET status = 'queued', available_at = ?, updated_at = ? WHERE status = 'processing'`, now, now)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return int(n), err
}

// RequeueCapture puts a processing capture back in the queue, not to be
// claimed before at. countAttempt records a transient failure of the run.
// It returns ENOTFOUND if the capture was deleted meanwhile.
func (s *Store) RequeueCapture(ctx context.Context, id string, at time.Time, countAttempt bool) error {
	return s.update(ctx, func(tx *sql.Tx) error {
		inc := 0
		if countAttempt {
			inc = 1
		}
		res, err := tx.ExecContext(ctx, `UPDATE captures SET status = 'queued', available_at = ?, attempts = attempts + ?, updated_at = ?
			WHERE id = ? AND status = 'processing'`, FormatTime(at), inc, FormatTime(s.Now()), id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return NotFound("Capture")
		}
		return nil
	})
}

// FailCapture marks a processing capture failed and, in the same
// transaction, removes everything an earlier run found in it: its
// translation and language, its segments and their links to tags, and the
// tags and categories nothing else uses any more. A failed capture keeps
// only its text; detection should run again for its user. It returns
// ENOTFOUND if the capture was deleted (or is no longer processing).
func (s *Store) FailCapture(ctx context.Context, id string) error {
	return s.update(ctx, func(tx *sql.Tx) error {
		now := FormatTime(s.Now())
		var userID string
		err := tx.QueryRowContext(ctx, `UPDATE captures SET status = 'failed', translated = '', language = '', stems = '', updated_at = ?
			WHERE id = ? AND status = 'processing' RETURNING user_id`, now, id).Scan(&userID)
		if errors.Is(err, sql.ErrNoRows) {
			return NotFound("Capture")
		} else if err != nil {
			return err
		}
		if err := settleJobs(ctx, tx, id, StatusFailed, now); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM segments WHERE capture_id = ?`, id); err != nil {
			return err
		}
		return pruneOrphans(ctx, tx, userID)
	})
}

// QueueCounts counts captures by status, across all users.
type QueueCounts struct {
	Queued, Processing, Failed int
}

// QueueCounts counts the queue.
func (s *Store) QueueCounts(ctx context.Context) (QueueCounts, error) {
	var q QueueCounts
	err := s.read.QueryRowContext(ctx, `SELECT
		count(*) FILTER (WHERE status = 'queued'),
		count(*) FILTER (WHERE status = 'processing'),
		count(*) FILTER (WHERE status = 'failed')
		FROM captures`).Scan(&q.Queued, &q.Processing, &q.Failed)
	return q, err
}

// ModelCall is one call to the model made for a capture.
type ModelCall struct {
	CaptureID    string
	Step         string
	Model        string
	PromptTokens int
	OutputTokens int
	Duration     time.Duration
}

// RecordModelCall stores a call against its capture. A capture deleted
// meanwhile gives ENOTFOUND.
func (s *Store) RecordModelCall(ctx context.Context, m ModelCall) error {
	return s.update(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO model_calls (id, capture_id, step, model, prompt_tokens, output_tokens, duration_ms, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, newID(), m.CaptureID, m.Step, m.Model, m.PromptTokens, m.OutputTokens,
			m.Duration.Milliseconds(), FormatTime(s.Now()))
		return err
	})
}

// CallTotals sums the model calls of a set of captures (all the user's when ids is empty).
type CallTotals struct {
	Calls, PromptTokens, OutputTokens int
}

// ModelCallTotals sums the calls recorded against the captures.
func (s *Store) ModelCallTotals(ctx context.Context, captureIDs []string) (CallTotals, error) {
	var t CallTotals
	marks := strings.TrimSuffix(strings.Repeat("?, ", len(captureIDs)), ", ")
	args := make([]any, len(captureIDs))
	for i, id := range captureIDs {
		args[i] = id
	}
	err := s.read.QueryRowContext(ctx, `SELECT count(*), coalesce(sum(prompt_tokens), 0), coalesce(sum(output_tokens), 0)
		FROM model_calls WHERE capture_id IN (`+marks+`)`, args...).Scan(&t.Calls, &t.PromptTokens, &t.OutputTokens)
	return t, err
}

// Analysis is everything one run found in a capture, committed at once.
type Analysis struct {
	CaptureID string
	UserID    string
	// Original, when set, is the text the run read: a capture whose text
	// was changed meanwhile takes nothing of it.
	Original   string
	Translated string
	Language   string
	Segments   []AnalysedSegment
}

// AnalysedSegment is a slice of the translated text and the tags found in it.
type AnalysedSegment struct {
	Start, End int
	Tags       []NewTag
}

// NewTag is a tag as a run found it. Category names the category of a
// trigger or behaviour: an existing category's id in CategoryID, or a new
// category's name in NewCategory; an existing tag keeps the category it has.
type NewTag struct {
	Type        TagType
	Name        string
	FeelingID   string
	CategoryID  string
	NewCategory string
}

// CommitAnalysis stores what a run found and marks the capture processed,
// all in one transaction. It returns ENOTFOUND when the capture was deleted
// (or is no longer processing, or its text changed) meanwhile, and EINVALID for a segment that
// is not a slice of the translated text.
func (s *Store) CommitAnalysis(ctx context.Context, a *Analysis) error {
	return s.update(ctx, func(tx *sql.Tx) error {
		now := FormatTime(s.Now())
		original := a.Original
		if original == "" && stemmers[a.Language] != nil {
			// A missing capture leaves it empty, and the update below finds nothing.
			_ = tx.QueryRowContext(ctx, `SELECT original FROM captures WHERE id = ?`, a.CaptureID).Scan(&original)
		}
		res, err := tx.ExecContext(ctx, `UPDATE captures SET status = 'processed', translated = ?, language = ?, stems = ?, attempts = 0, updated_at = ?
			WHERE id = ? AND user_id = ? AND status = 'processing' AND (? = '' OR original = ?)`,
			a.Translated, a.Language, wordStems(original, a.Language), now, a.CaptureID, a.UserID, a.Original, a.Original)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return NotFound("Capture")
		}
		if err := settleJobs(ctx, tx, a.CaptureID, StatusProcessed, now); err != nil {
			return err
		}
		// A capture analysed again starts from nothing.
		res, err = tx.ExecContext(ctx, `DELETE FROM segments WHERE capture_id = ?`, a.CaptureID)
		if err != nil {
			return err
		}
		// Only segments removed leave tags without segments: a first run
		// has none to prune, and the sweep over the user's tags is skipped.
		again, _ := res.RowsAffected()
		newCategories := map[string]string{} // kind+name -> id
		for i, sg := range a.Segments {
			if sg.Start < 0 || sg.End > len(a.Translated) || sg.Start >= sg.End {
				return Invalid("segments", "Segment %d [%d, %d) is not a slice of the text.", i, sg.Start, sg.End)
			}
			segID := newID()
			if _, err := tx.ExecContext(ctx, `INSERT INTO segments (id, capture_id, position, start, end, text) VALUES (?, ?, ?, ?, ?, ?)`,
				segID, a.CaptureID, i, sg.Start, sg.End, a.Translated[sg.Start:sg.End]); err != nil {
				return err
			}
			var ids []string
			for j, t := range sg.Tags {
				tagID, err := upsertTag(ctx, tx, a.UserID, t, newCategories, now)
				if err != nil {
					return fmt.Errorf("tag %s %q: %w", t.Type, t.Name, err)
				}
				res, err := tx.ExecContext(ctx, `INSERT INTO segment_tags (segment_id, tag_id, position) VALUES (?, ?, ?)
					ON CONFLICT DO NOTHING`, segID, tagID, j)
				if err != nil {
					return err
				}
				if n, _ := res.RowsAffected(); n == 1 {
					ids = append(ids, tagID)
				}
			}
			if _, err := tx.ExecContext(ctx, `UPDATE segments SET tag_ids = ? WHERE id = ?`, strings.Join(ids, ","), segID); err != nil {
				return err
			}
		}
		if again == 0 {
			return nil
		}
		return pruneOrphans(ctx, tx, a.UserID)
	})
}

// upsertTag returns the id of the user's tag of that type and name, making
// it (and its new category) when it does not exist yet.
func upsertTag(ctx context.Context, tx *sql.Tx, userID string, t NewTag, newCategories map[string]string, now string) (string, error) {
	var id string
	err := tx.QueryRowContext(ctx, `SELECT id FROM tags WHERE user_id = ? AND type = ? AND name = ?`, userID, t.Type, t.Name).Scan(&id)
	if err == nil {
		return id, nil
	} else if !errors.Is(err, sql.ErrNoRows) {
		return "", err
	}
	var category, feeling any
	if t.FeelingID != "" {
		feeling = t.FeelingID
	}
	if Categorised(t.Type) {
		switch {
		case t.CategoryID != "":
			category = t.CategoryID
		case t.NewCategory != "":
			key := string(t.Type) + "\x00" + strings.ToLower(t.NewCategory)
			if cid, ok := newCategories[key]; ok {
				category = cid
				break
			}
			cid := newID()
			err := tx.QueryRowContext(ctx, `INSERT INTO categories (id, user_id, kind, name, created_at) VALUES (?, ?, ?, ?, ?)
				ON CONFLICT (user_id, kind, name) DO UPDATE SET name = categories.name RETURNING id`,
				cid, userID, t.Type, t.NewCategory, now).Scan(&cid)
			if err != nil {
				return "", err
			}
			newCategories[key], category = cid, cid
		default:
			return "", Invalid("category", "A %s needs a category.", t.Type)
		}
	}
	id = newID()
	_, err = tx.ExecContext(ctx, `INSERT INTO tags (id, user_id, type, name, category_id, feeling_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		id, userID, t.Type, t.Name, category, feeling, now)
	return id, err
}
