package store

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"
	"unicode/utf8"
)

// CaptureStatus is where a capture is in its analysis. It is stored and
// sent as its text.
type CaptureStatus string

// Capture statuses, in the order of a capture's life.
const (
	StatusQueued     CaptureStatus = "queued"     // waiting for a run
	StatusProcessing CaptureStatus = "processing" // claimed by a worker
	StatusProcessed  CaptureStatus = "processed"  // a run committed what it found
	StatusFailed     CaptureStatus = "failed"     // the model kept answering unusably; the text is kept
)

// CaptureStatuses lists every status a capture can have, in the order of
// its life.
var CaptureStatuses = []CaptureStatus{StatusQueued, StatusProcessing, StatusProcessed, StatusFailed}

// CaptureMaxLength is the longest capture text accepted, in characters:
// about four pages, well inside what the model reads at once.
const CaptureMaxLength = 10000

// CaptureMaxFuture is how far ahead of now occurred_at may lie, for clocks
// and time zones that disagree.
const CaptureMaxFuture = 24 * time.Hour

// Capture is one journal entry and what its analysis found.
type Capture struct {
	ID         string
	UserID     string
	Original   string
	Translated string // English; empty until processed
	Language   string // ISO 639-1 code; empty until processed
	Origin     string
	OccurredAt time.Time
	Status     CaptureStatus
	Attempts   int // runs that ended in a transient error since the last success
	CreatedAt  time.Time
	UpdatedAt  time.Time
	Segments   []Segment // filled by FindCapture
}

// Segment is a verbatim slice of a capture's translated text.
type Segment struct {
	ID         string
	CaptureID  string
	Position   int
	Start, End int // byte offsets into the translated text
	Text       string
	Tags       []Tag
}

// Validate checks the text and the time. It returns EINVALID naming "text"
// or "occurred_at".
func (c *Capture) Validate(now time.Time) error {
	if strings.TrimSpace(c.Original) == "" {
		return Invalid("text", "The text field is required.")
	}
	if !utf8.ValidString(c.Original) {
		return Invalid("text", "The text must be valid UTF-8.")
	}
	if n := utf8.RuneCountInString(c.Original); n > CaptureMaxLength {
		return Invalid("text", "The text may not be longer than %d characters; it has %d. Split it into several entries.", CaptureMaxLength, n)
	}
	if c.OccurredAt.After(now.Add(CaptureMaxFuture)) {
		return Invalid("occurred_at", "The occurred_at may not be more than a day in the future.")
	}
	if c.OccurredAt.Year() < 1900 {
		return Invalid("occurred_at", "The occurred_at must be after 1900.")
	}
	return nil
}

const captureColumns = `id, user_id, original, translated, language, origin, occurred_at, status, attempts, created_at, updated_at`

func scanCapture(row interface{ Scan(...any) error }) (*Capture, error) {
	var c Capture
	err := row.Scan(&c.ID, &c.UserID, &c.Original, &c.Translated, &c.Language, &c.Origin, dbTime{&c.OccurredAt}, &c.Status, &c.Attempts,
		dbTime{&c.CreatedAt}, dbTime{&c.UpdatedAt})
	if errors.Is(err, sql.ErrNoRows) {
		return nil, NotFound("Capture")
	} else if err != nil {
		return nil, err
	}
	return &c, nil
}

// captureCount reads how many captures a user has from capture_counts,
// which triggers keep, rather than counting them: a count reads the user's
// whole index, and a list gives the number on every page.
const captureCount = `SELECT coalesce((SELECT captures FROM capture_counts WHERE user_id = ?), 0)`

// captureList is the list of the user's captures, newest occurred_at first.
func captureList(userID string) listQuery {
	return listQuery{columns: captureColumns, from: `FROM captures WHERE user_id = ?`,
		args: []any{userID}, order: `occurred_at DESC, id DESC`, count: captureCount}
}

// ListCaptures returns a page of the user's captures, newest occurred_at
// first, and how many there are in all.
func (s *Store) ListCaptures(ctx context.Context, userID string, p Page) ([]Capture, int, error) {
	var list []Capture
	var total int
	err := s.viewPrepared(ctx, func(tx preparedTx) (err error) {
		list, total, err = listPage(ctx, tx, captureList(userID), p, scanCapture)
		return err
	})
	return list, total, err
}

// FindCapture returns the user's capture with its segments and their tags.
// Another user's capture is ENOTFOUND, like one that does not exist.
func (s *Store) FindCapture(ctx context.Context, userID, id string) (*Capture, error) {
	var c *Capture
	err := s.viewPrepared(ctx, func(tx preparedTx) error {
		var err error
		c, err = scanCapture(tx.QueryRowContext(ctx, `SELECT `+captureColumns+` FROM captures WHERE id = ? AND user_id = ?`, id, userID))
		if err != nil {
			return err
		}
		c.Segments, err = segmentsOf(ctx, tx, id)
		return err
	})
	return c, err
}

// segmentsOf loads a capture's segments in order, each with its tags.
func segmentsOf(ctx context.Context, tx querier, captureID string) ([]Segment, error) {
	rows, err := tx.QueryContext(ctx, `SELECT id, capture_id, position, start, end, text FROM segments WHERE capture_id = ? ORDER BY position`, captureID)
	if err != nil {
		return nil, err
	}
	var segs []Segment
	index := map[string]int{}
	for rows.Next() {
		var sg Segment
		if err := rows.Scan(&sg.ID, &sg.CaptureID, &sg.Position, &sg.Start, &sg.End, &sg.Text); err != nil {
			rows.Close()
			return nil, err
		}
		index[sg.ID] = len(segs)
		segs = append(segs, sg)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows, err = tx.QueryContext(ctx, `SELECT st.segment_id, `+tagColumns+`
		FROM segment_tags st JOIN segments sg ON sg.id = st.segment_id JOIN tags t ON t.id = st.tag_id
		LEFT JOIN categories c ON c.id = t.category_id
		WHERE sg.capture_id = ? ORDER BY sg.position, st.position`, captureID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var segID string
		t, err := scanTag(rows, &segID)
		if err != nil {
			return nil, err
		}
		i := index[segID]
		segs[i].Tags = append(segs[i].Tags, *t)
	}
	return segs, rows.Err()
}

// DeleteCapture removes the user's capture and everything found in it:
// segments, their links to tags, tags no other capture uses and categories
// left empty (a rejected category, or one a pattern stands on, stays).
// It returns ENOTFOUND for a capture that is not the user's.
func (s *Store) DeleteCapture(ctx context.Context, userID, id string) error {
	return s.update(ctx, func(tx *sql.Tx) error {
		var mine bool
		if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM captures WHERE id = ? AND user_id = ?)`, id, userID).Scan(&mine); err != nil {
			return err
		}
		if !mine {
			return NotFound("Capture")
		}
		// A run a batch waits for will not happen: it counts as failed.
		if err := settleJobs(ctx, tx, id, StatusFailed, FormatTime(s.Now())); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM captures WHERE id = ? AND user_id = ?`, id, userID); err != nil {
			return err
		}
		return pruneOrphans(ctx, tx, userID)
	})
}

// pruneOrphans deletes the user's tags without segments, and categories
// without tags unless a pattern stands on them (it closes, and keeps its id
// should the topic come back).
func pruneOrphans(ctx context.Context, tx *sql.Tx, userID string) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM tags WHERE user_id = ?
		AND NOT EXISTS (SELECT 1 FROM segment_tags st WHERE st.tag_id = tags.id)`, userID); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `DELETE FROM categories WHERE user_id = ? AND rejected_at IS NULL
		AND NOT EXISTS (SELECT 1 FROM tags t WHERE t.category_id = categories.id)
		AND NOT EXISTS (SELECT 1 FROM patterns p WHERE p.category_id = categories.id)`, userID)
	return err
}

// CaptureUpdate is a change to a capture; nil fields stay as they are.
type CaptureUpdate struct {
	Text       *string
	OccurredAt *time.Time
}

// CaptureChanges says what an update changed.
type CaptureChanges struct {
	Text       bool // the capture went back to the queue
	OccurredAt bool
}

// UpdateCapture applies u to the user's capture and returns it as it now
// is (without segments). A changed text puts the capture back in the queue,
// ahead of bulk work and without waiting: what the last run found stays
// until the next one commits, and goes if it fails. The same text or time
// again changes nothing. It returns ENOTFOUND for a capture that is not the
// user's and EINVALID naming "text" or "occurred_at".
func (s *Store) UpdateCapture(ctx context.Context, userID, id string, u CaptureUpdate) (*Capture, CaptureChanges, error) {
	var c *Capture
	var ch CaptureChanges
	err := s.update(ctx, func(tx *sql.Tx) error {
		var err error
		c, err = scanCapture(tx.QueryRowContext(ctx, `SELECT `+captureColumns+` FROM captures WHERE id = ? AND user_id = ?`, id, userID))
		if err != nil {
			return err
		}
		now := s.Now()
		next := *c
		if u.Text != nil {
			next.Original = *u.Text
		}
		if u.OccurredAt != nil {
			next.OccurredAt = u.OccurredAt.UTC().Truncate(time.Microsecond)
		}
		if err := next.Validate(now); err != nil {
			return err
		}
		ch = CaptureChanges{Text: next.Original != c.Original, OccurredAt: !next.OccurredAt.Equal(c.OccurredAt)}
		if !ch.Text && !ch.OccurredAt {
			return nil
		}
		next.UpdatedAt = now
		if ch.Text {
			next.Status, next.Attempts = StatusQueued, 0
		}
		// The stems follow the text at once, in the language it had; the
		// run that reads it again sets both anew.
		_, err = tx.ExecContext(ctx, `UPDATE captures SET original = ?, stems = CASE WHEN ? THEN ? ELSE stems END, occurred_at = ?, status = ?, attempts = ?,
			available_at = CASE WHEN ? THEN ? ELSE available_at END, background = CASE WHEN ? THEN 0 ELSE background END, updated_at = ?
			WHERE id = ?`, next.Original, ch.Text, wordStems(next.Original, c.Language), FormatTime(next.OccurredAt), next.Status, next.Attempts,
			ch.Text, FormatTime(now), ch.Text, FormatTime(now), id)
		c = &next
		return err
	})
	if err != nil {
		return nil, CaptureChanges{}, err
	}
	return c, ch, nil
}

// FindCaptureState returns a capture without its segments, whoever's it is,
// as the pipeline reports it after a change. It returns ENOTFOUND.
func (s *Store) FindCaptureState(ctx context.Context, id string) (*Capture, error) {
	return scanCapture(s.read.QueryRowContext(ctx, `SELECT `+captureColumns+` FROM captures WHERE id = ?`, id))
}
