package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/google/uuid"
)

// PatternStatus is what the user made of a pattern or a correlation: found
// and not yet reviewed, accepted or rejected. It is stored and sent as its
// text.
type PatternStatus string

// Pattern and correlation statuses.
const (
	PatternDetected PatternStatus = "detected"
	PatternAccepted PatternStatus = "accepted"
	PatternRejected PatternStatus = "rejected"
)

// Pattern is a category that keeps coming back with the same feelings.
type Pattern struct {
	ID                string
	UserID            string
	CategoryID        string
	Name              string  // the category's name
	Kind              TagType // the category's kind
	Sentiment         string
	Impact            string
	Urgent            bool
	Feelings          []Feeling
	Description       string
	DescriptionLocale string
	Status            PatternStatus
	CapturesCount     int
	LastDetectedAt    time.Time
	ClosedAt          *time.Time
	CreatedAt         time.Time
	UpdatedAt         time.Time
}

// Correlation is a person, location or activity a pattern occurs with more often.
type Correlation struct {
	ID        string
	PatternID string
	Tag       Tag
	Amount    int
	Impact    string
	Status    PatternStatus
}

// Flow is one segment of a pattern told as trigger, feeling and behaviour.
type Flow struct {
	ID        string
	PatternID string
	SegmentID string
	Trigger   string
	Feeling   string
	Behaviour string
	// TriggerCategory and BehaviourCategory name the categories of the
	// trigger and the behaviour, as PatternDetail reads them; empty for a
	// tag that has none.
	TriggerCategory, BehaviourCategory string
}

// CaptureRef is a capture as patterns and the timeline list it.
type CaptureRef struct {
	ID         string
	Status     CaptureStatus
	OccurredAt time.Time
}

const patternColumns = `p.id, p.user_id, p.category_id, c.name, c.kind, p.sentiment, p.impact, p.urgent, p.feelings,
	p.description, p.description_locale, p.status, p.captures_count, p.last_detected_at, p.closed_at, p.created_at, p.updated_at`

// scanPattern reads patternColumns; feelings get their ids only (see withFeelings).
func scanPattern(row interface{ Scan(...any) error }) (*Pattern, error) {
	var p Pattern
	var feelings string
	err := row.Scan(&p.ID, &p.UserID, &p.CategoryID, &p.Name, &p.Kind, &p.Sentiment, &p.Impact, &p.Urgent, &feelings,
		&p.Description, &p.DescriptionLocale, &p.Status, &p.CapturesCount,
		dbTime{&p.LastDetectedAt}, dbNullTime{&p.ClosedAt}, dbTime{&p.CreatedAt}, dbTime{&p.UpdatedAt})
	if errors.Is(err, sql.ErrNoRows) {
		return nil, NotFound("Pattern")
	} else if err != nil {
		return nil, err
	}
	var ids []string
	if err := json.Unmarshal([]byte(feelings), &ids); err != nil {
		return nil, err
	}
	for _, id := range ids {
		p.Feelings = append(p.Feelings, Feeling{ID: id})
	}
	return &p, nil
}

// withFeelings fills in the names of the patterns' feelings.
func withFeelings(ctx context.Context, q querier, list []*Pattern) error {
	rows, err := q.QueryContext(ctx, `SELECT id, name, valence, energy FROM feelings`)
	if err != nil {
		return err
	}
	defer rows.Close()
	vocab := map[string]Feeling{}
	for rows.Next() {
		var f Feeling
		if err := rows.Scan(&f.ID, &f.Name, &f.Valence, &f.Energy); err != nil {
			return err
		}
		vocab[f.ID] = f
	}
	for _, p := range list {
		for i, f := range p.Feelings {
			p.Feelings[i] = vocab[f.ID]
		}
	}
	return rows.Err()
}

// querier is what a read needs: a pool or a transaction.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// PatternState is whether a pattern is open or closed: it closes when it
// goes quiet for a week (or its captures are gone) and opens again when
// seen. It is sent as its text, and a list can be narrowed to one state.
type PatternState string

// Pattern states.
const (
	PatternOpen   PatternState = "open"
	PatternClosed PatternState = "closed"
)

// State is whether the pattern is open or closed, by its ClosedAt.
func (p *Pattern) State() PatternState {
	if p.ClosedAt != nil {
		return PatternClosed
	}
	return PatternOpen
}

// PatternFilter selects which of a user's patterns are listed.
type PatternFilter struct {
	State *PatternState // PatternOpen or PatternClosed; nil for both
	Page  Page
}

// Validate checks the state. It returns EINVALID naming "state".
func (f PatternFilter) Validate() error {
	if f.State != nil && *f.State != PatternOpen && *f.State != PatternClosed {
		return Invalid("state", "The state must be open or closed.")
	}
	return nil
}

// patternListOrder puts open patterns first, urgent ones first and then the
// most recently seen, and closed ones after them, the most recently closed
// first.
const patternListOrder = `p.closed_at IS NOT NULL, CASE WHEN p.closed_at IS NULL THEN p.urgent END DESC,
	p.closed_at DESC, p.last_detected_at DESC, p.id`

// ListPatterns returns a page of the user's listed patterns, open and closed,
// and how many there are. See FindPatterns.
func (s *Store) ListPatterns(ctx context.Context, userID string, pg Page) ([]Pattern, int, error) {
	return s.FindPatterns(ctx, userID, PatternFilter{Page: pg})
}

// FindPatterns returns a page of the user's patterns that f selects, in list
// order (patternListOrder), and how many there are. Rejected patterns are
// never listed. It returns EINVALID for an unknown state.
func (s *Store) FindPatterns(ctx context.Context, userID string, f PatternFilter) ([]Pattern, int, error) {
	if err := f.Validate(); err != nil {
		return nil, 0, err
	}
	where := `p.user_id = ? AND p.status != 'rejected'`
	switch {
	case f.State == nil:
	case *f.State == PatternOpen:
		where += ` AND p.closed_at IS NULL`
	default:
		where += ` AND p.closed_at IS NOT NULL`
	}
	var out []Pattern
	var total int
	err := s.viewPrepared(ctx, func(tx preparedTx) (err error) {
		out, total, err = listPage(ctx, tx, listQuery{columns: patternColumns,
			from: `FROM patterns p JOIN categories c ON c.id = p.category_id WHERE ` + where,
			args: []any{userID}, order: patternListOrder}, f.Page, scanPattern)
		if err != nil {
			return err
		}
		list := make([]*Pattern, len(out))
		for i := range out {
			list[i] = &out[i]
		}
		return withFeelings(ctx, tx, list)
	})
	return out, total, err
}

// RejectedPatterns returns the user's rejected patterns, the most recently
// rejected first (up to 200), so that one can be found again and restored.
func (s *Store) RejectedPatterns(ctx context.Context, userID string) ([]Pattern, error) {
	var out []Pattern
	err := s.viewPrepared(ctx, func(tx preparedTx) (err error) {
		out, _, err = listPage(ctx, tx, listQuery{columns: patternColumns,
			from: `FROM patterns p JOIN categories c ON c.id = p.category_id WHERE p.user_id = ? AND p.status = 'rejected'`,
			args: []any{userID}, order: `p.updated_at DESC, p.id`}, Page{Page: 1, Limit: 200}, scanPattern)
		return err
	})
	return out, err
}

// FindPattern returns the user's pattern, rejected ones included, or ENOTFOUND.
func (s *Store) FindPattern(ctx context.Context, userID, id string) (*Pattern, error) {
	var p *Pattern
	err := s.viewPrepared(ctx, func(tx preparedTx) error {
		var err error
		p, err = findPattern(ctx, tx, userID, id)
		if err != nil {
			return err
		}
		return withFeelings(ctx, tx, []*Pattern{p})
	})
	return p, err
}

func findPattern(ctx context.Context, q querier, userID, id string) (*Pattern, error) {
	return scanPattern(q.QueryRowContext(ctx, `SELECT `+patternColumns+` FROM patterns p JOIN categories c ON c.id = p.category_id
		WHERE p.id = ? AND p.user_id = ?`, id, userID))
}

// PatternDetail is what a single read of a pattern shows beyond the pattern.
type PatternDetail struct {
	Captures     []CaptureRef
	Correlations []Correlation
	Flows        []Flow
}

// patternSegment holds when the segment sg shows the pattern p: besides a
// tag of p's category, the segment has one of p's feelings. A plain mention
// of the category, with none of them, is not a day of the pattern.
const patternSegment = `EXISTS (SELECT 1 FROM segment_tags sf JOIN tags tf ON tf.id = sf.tag_id
	WHERE sf.segment_id = sg.id AND tf.feeling_id IN (SELECT value FROM json_each(p.feelings)))`

// PatternDetail returns the captures a pattern rests on (newest first), its
// correlations (rejected ones left out) and its flows.
func (s *Store) PatternDetail(ctx context.Context, p *Pattern) (*PatternDetail, error) {
	d := &PatternDetail{Captures: []CaptureRef{}, Correlations: []Correlation{}, Flows: []Flow{}}
	err := s.view(ctx, func(tx *sql.Tx) error {
		var err error
		d.Captures, err = captureRefs(ctx, tx, `SELECT DISTINCT cp.id, cp.status, cp.occurred_at FROM captures cp
			JOIN segments sg ON sg.capture_id = cp.id JOIN segment_tags st ON st.segment_id = sg.id JOIN tags t ON t.id = st.tag_id
			JOIN patterns p ON p.category_id = t.category_id
			WHERE p.id = ? AND cp.user_id = ? AND `+patternSegment+` ORDER BY cp.occurred_at DESC, cp.id DESC`, p.ID, p.UserID)
		if err != nil {
			return err
		}
		if d.Correlations, err = correlationsOf(ctx, tx, `co.pattern_id = ? AND co.status != 'rejected'`, p.ID); err != nil {
			return err
		}
		// A flow names its tags; their categories are those of the tags of
		// that name and kind in its segment.
		rows, err := tx.QueryContext(ctx, `SELECT f.id, f.pattern_id, f.segment_id, f.trigger, f.feeling, f.behaviour,
			coalesce((SELECT c.name FROM segment_tags st JOIN tags t ON t.id = st.tag_id JOIN categories c ON c.id = t.category_id
				WHERE st.segment_id = f.segment_id AND t.type = 'trigger' AND t.name = f.trigger), ''),
			coalesce((SELECT c.name FROM segment_tags st JOIN tags t ON t.id = st.tag_id JOIN categories c ON c.id = t.category_id
				WHERE st.segment_id = f.segment_id AND t.type IN ('good_behaviour', 'bad_behaviour') AND t.name = f.behaviour
				ORDER BY st.position LIMIT 1), '')
			FROM flows f JOIN segments sg ON sg.id = f.segment_id JOIN captures cp ON cp.id = sg.capture_id
			WHERE f.pattern_id = ? ORDER BY cp.occurred_at, sg.position`, p.ID)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var f Flow
			if err := rows.Scan(&f.ID, &f.PatternID, &f.SegmentID, &f.Trigger, &f.Feeling, &f.Behaviour, &f.TriggerCategory, &f.BehaviourCategory); err != nil {
				return err
			}
			d.Flows = append(d.Flows, f)
		}
		return rows.Err()
	})
	return d, err
}

func correlationsOf(ctx context.Context, q querier, where string, args ...any) ([]Correlation, error) {
	rows, err := q.QueryContext(ctx, `SELECT co.id, co.pattern_id, co.amount, co.impact, co.status, t.id, t.user_id, t.type, t.name
		FROM correlations co JOIN tags t ON t.id = co.tag_id WHERE `+where+` ORDER BY t.type, co.amount DESC, t.name`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Correlation{}
	for rows.Next() {
		var c Correlation
		if err := rows.Scan(&c.ID, &c.PatternID, &c.Amount, &c.Impact, &c.Status, &c.Tag.ID, &c.Tag.UserID, &c.Tag.Type, &c.Tag.Name); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// flowID is a flow's id: the same pattern and segment always give the same
// id, though flows are written anew on every run.
func flowID(patternID, segmentID string) string {
	return uuid.NewSHA1(uuid.NameSpaceOID, []byte("recur/flow/"+patternID+"/"+segmentID)).String()
}

// ReviewPattern sets a pattern's status to accepted or rejected, on the
// user's own decision. Rejecting closes the pattern, drops its flows and
// correlations and marks its category rejected, so later runs leave the
// topic alone; accepting a rejected pattern undoes that. Detected is a
// restore: only a rejected pattern goes back to it, its topic no longer
// left alone and open, for the next run to recount its flows and correlations
// and to close it again if it is quiet. It
// returns the pattern, EINVALID for another status (or detected from
// anything but rejected) or ENOTFOUND.
func (s *Store) ReviewPattern(ctx context.Context, userID, id string, status PatternStatus) (*Pattern, error) {
	if status != PatternAccepted && status != PatternRejected && status != PatternDetected {
		return nil, Invalid("status", "The status must be accepted, rejected or detected.")
	}
	err := s.update(ctx, func(tx *sql.Tx) error {
		p, err := findPattern(ctx, tx, userID, id)
		if err != nil {
			return err
		}
		now := FormatTime(s.Now())
		switch {
		case p.Status == status:
			return nil
		case status == PatternDetected && p.Status != PatternRejected:
			return Invalid("status", "Only a rejected pattern goes back to detected; this one is %s.", p.Status)
		case status == PatternDetected:
			for _, q := range []string{
				`UPDATE patterns SET status = 'detected', closed_at = NULL, updated_at = ?1 WHERE id = ?2`,
				`UPDATE categories SET rejected_at = NULL WHERE id = (SELECT category_id FROM patterns WHERE id = ?2)`,
			} {
				if _, err := tx.ExecContext(ctx, q, now, id); err != nil {
					return err
				}
			}
		case status == PatternRejected:
			for _, q := range []string{
				`UPDATE patterns SET status = 'rejected', urgent = 0, links_hash = '', closed_at = coalesce(closed_at, ?1), updated_at = ?1 WHERE id = ?2`,
				`UPDATE categories SET rejected_at = ?1 WHERE id = (SELECT category_id FROM patterns WHERE id = ?2)`,
				`DELETE FROM flows WHERE pattern_id = ?2`,
				`DELETE FROM correlations WHERE pattern_id = ?2`,
			} {
				if _, err := tx.ExecContext(ctx, q, now, id); err != nil {
					return err
				}
			}
		default:
			// Accepted patterns close only when no capture is left; the
			// next run sees to that and fills in the rest.
			for _, q := range []string{
				`UPDATE patterns SET status = 'accepted', closed_at = NULL, updated_at = ?1 WHERE id = ?2`,
				`UPDATE categories SET rejected_at = NULL WHERE id = (SELECT category_id FROM patterns WHERE id = ?2)`,
			} {
				if _, err := tx.ExecContext(ctx, q, now, id); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s.FindPattern(ctx, userID, id)
}

// ReviewCorrelation sets a correlation's status to accepted or rejected. A
// rejected correlation is hidden and never comes back for its pattern. It
// returns EINVALID for another status, ENOTFOUND for a correlation that is
// not the user's.
func (s *Store) ReviewCorrelation(ctx context.Context, userID, id string, status PatternStatus) (*Correlation, error) {
	if status != PatternAccepted && status != PatternRejected {
		return nil, Invalid("status", "The status must be accepted or rejected.")
	}
	var out *Correlation
	err := s.update(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE correlations SET status = ?, updated_at = ?
			WHERE id = ? AND pattern_id IN (SELECT id FROM patterns WHERE user_id = ?)`, status, FormatTime(s.Now()), id, userID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return NotFound("Correlation")
		}
		list, err := correlationsOf(ctx, tx, `co.id = ?`, id)
		if err != nil {
			return err
		}
		out = &list[0]
		return nil
	})
	return out, err
}

// PatternsToDescribe returns the user's patterns, rejected ones excepted,
// whose description is missing or in another language than locale.
func (s *Store) PatternsToDescribe(ctx context.Context, userID, locale string) ([]Pattern, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT `+patternColumns+` FROM patterns p JOIN categories c ON c.id = p.category_id
		WHERE p.user_id = ? AND p.status != 'rejected' AND p.description_locale != ? ORDER BY p.created_at`, userID, locale)
	if err != nil {
		return nil, err
	}
	var list []*Pattern
	for rows.Next() {
		p, err := scanPattern(rows)
		if err != nil {
			rows.Close()
			return nil, err
		}
		list = append(list, p)
	}
	rows.Close()
	if err := withFeelings(ctx, s.read, list); err != nil {
		return nil, err
	}
	out := make([]Pattern, len(list))
	for i, p := range list {
		out[i] = *p
	}
	return out, rows.Err()
}

// PatternSegments returns the pattern's most recent segments, up to limit,
// oldest first, each with its tags (names and types only).
func (s *Store) PatternSegments(ctx context.Context, p *Pattern, limit int) ([]Segment, error) {
	var out []Segment
	err := s.view(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT id, text FROM (
			SELECT DISTINCT sg.id, sg.text, cp.occurred_at, sg.position FROM segments sg
			JOIN captures cp ON cp.id = sg.capture_id JOIN segment_tags st ON st.segment_id = sg.id JOIN tags t ON t.id = st.tag_id
			WHERE t.category_id = ? AND cp.user_id = ? AND cp.status = 'processed'
			ORDER BY cp.occurred_at DESC, sg.position DESC LIMIT ?) ORDER BY occurred_at, position`, p.CategoryID, p.UserID, limit)
		if err != nil {
			return err
		}
		for rows.Next() {
			var sg Segment
			if err := rows.Scan(&sg.ID, &sg.Text); err != nil {
				rows.Close()
				return err
			}
			out = append(out, sg)
		}
		rows.Close()
		for i := range out {
			rows, err := tx.QueryContext(ctx, `SELECT t.type, t.name FROM segment_tags st JOIN tags t ON t.id = st.tag_id
				WHERE st.segment_id = ? ORDER BY st.position`, out[i].ID)
			if err != nil {
				return err
			}
			for rows.Next() {
				var t Tag
				if err := rows.Scan(&t.Type, &t.Name); err != nil {
					rows.Close()
					return err
				}
				out[i].Tags = append(out[i].Tags, t)
			}
			rows.Close()
		}
		return nil
	})
	return out, err
}

// captureRefs runs a query selecting id, status and occurred_at of captures.
func captureRefs(ctx context.Context, q querier, query string, args ...any) ([]CaptureRef, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []CaptureRef{}
	for rows.Next() {
		var c CaptureRef
		if err := rows.Scan(&c.ID, &c.Status, dbTime{&c.OccurredAt}); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}
