package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"strings"
	"time"
)

// Facts is what detection counts over for one user.
type Facts struct {
	Captures     []CaptureRef  // processed captures, oldest first
	Tags         []TagFact     // the user's tags; segments name them by index
	Segments     []SegmentFact // the segments of the processed captures that have tags, in order
	Categories   []Category
	Feelings     []Feeling
	Patterns     []PatternFact
	Correlations []CorrelationFact // the reviewed ones
	// Since, from CachedDetectionFacts, is what changed since the cache's
	// last read for the user; nil when it cannot tell (the journal was read
	// whole, or a tag changed).
	Since *FactsChange
}

// FactsChange is what changed in a user's journal between two cached reads
// of it.
type FactsChange struct {
	// Segments are those of the captures added, changed or gone since,
	// both as they were and as they are, naming tags as Facts.Tags does.
	Segments []SegmentFact
}

// SegmentFact is a segment of a processed capture and its tags, in order.
type SegmentFact struct {
	ID         string
	CaptureID  string
	OccurredAt time.Time
	Tags       []int32 // indexes into Facts.Tags
}

// TagFact is a tag as detection sees it.
type TagFact struct {
	ID                          string
	Type                        TagType
	Name, CategoryID, FeelingID string
}

// PatternFact is a stored pattern's state before a detection run.
type PatternFact struct {
	ID, CategoryID string
	Status         PatternStatus
	Sentiment      string
	ClosedAt       *time.Time
	LinksHash      string // see DetectedPattern.LinksHash
}

// CorrelationFact is a reviewed correlation.
type CorrelationFact struct {
	PatternID, TagID string
	Status           PatternStatus
}

// DetectionFacts loads, in one snapshot, what detection needs of the user.
func (s *Store) DetectionFacts(ctx context.Context, userID string) (*Facts, error) {
	f := &Facts{}
	err := s.viewMapped(ctx, func(tx *sql.Tx) error {
		tags, err := detectionTags(ctx, tx, f, userID)
		if err != nil {
			return err
		}
		if err := detectionCaptures(ctx, tx, f, userID, tags); err != nil {
			return err
		}
		return detectionState(ctx, tx, f, userID)
	})
	return f, err
}

// detectionTags reads the user's tags, and returns each one's place in
// f.Tags by its id.
func detectionTags(ctx context.Context, tx *sql.Tx, f *Facts, userID string) (map[string]int32, error) {
	rows, err := tx.QueryContext(ctx, `SELECT id, type, name, coalesce(category_id, ''), coalesce(feeling_id, '') FROM tags WHERE user_id = ?`, userID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	byID := map[string]int32{}
	for rows.Next() {
		var t TagFact
		if err := rows.Scan(&t.ID, &t.Type, &t.Name, &t.CategoryID, &t.FeelingID); err != nil {
			return nil, err
		}
		byID[t.ID] = int32(len(f.Tags))
		f.Tags = append(f.Tags, t)
	}
	return byID, rows.Err()
}

// detectionCapturesQuery reads captures and their segments, the captures
// its callers' conditions name: a user's processed captures, in the order
// of their time and then id, where +status keeps SQLite on the user's index
// (the queue's index on status would walk every user's processed captures).
// The segments come in their order, from the index segments_detection
// alone.
const detectionCapturesQuery = `SELECT c.id, c.occurred_at,
		coalesce((SELECT group_concat(sg.id || ':' || sg.tag_ids, ';') FROM segments sg WHERE sg.capture_id = c.id AND sg.tag_ids != ''), '')
	FROM captures c WHERE `

// userFactsQuery reads all of a user's processed captures.
const userFactsQuery = detectionCapturesQuery + `c.user_id = ? AND +c.status = 'processed' ORDER BY c.occurred_at, c.id`

// detectionCaptures reads the user's processed captures, oldest first, into
// f, their segments' tags as numbers (tags gives them by id).
func detectionCaptures(ctx context.Context, tx *sql.Tx, f *Facts, userID string, tags map[string]int32) error {
	return scanDetectionCaptures(ctx, tx, tags, func(c factCapture) {
		f.Captures = append(f.Captures, CaptureRef{ID: c.id, Status: StatusProcessed, OccurredAt: c.occurred})
		f.Segments = append(f.Segments, c.segments...)
	}, userFactsQuery, userID)
}

// factCapture is a processed capture as detection reads it.
type factCapture struct {
	id, at   string // at as stored: its order is the time's
	occurred time.Time
	segments []SegmentFact
}

// scanDetectionCaptures runs query, detectionCapturesQuery narrowed and
// ordered, and gives each capture to each, oldest first, each in one row
// with its segments and their tag ids (segments.tag_ids), as
// "segment:tag,tag;segment:tag". Ten years are some 25,000 captures but
// 100,000 segments: a row a capture rather than a row a segment (or a tag)
// keeps them quick to read, and the segments' ids share the row's memory.
// A tag id that tags does not hold is left out: the tag was deleted since.
func scanDetectionCaptures(ctx context.Context, tx *sql.Tx, tags map[string]int32, each func(factCapture), query string, args ...any) error {
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	var id, at, segments string // scanned into outside the loop, so as not to escape on every row
	for rows.Next() {
		if err := rows.Scan(&id, &at, &segments); err != nil {
			return err
		}
		occurred, err := ParseTime(at)
		if err != nil {
			return err
		}
		c := factCapture{id: id, at: at, occurred: occurred}
		var all []int32
		var ends []int
		for segments != "" {
			var sg, ids string
			sg, segments, _ = strings.Cut(segments, ";")
			sg, ids, _ = strings.Cut(sg, ":")
			for ids != "" {
				var tag string
				tag, ids, _ = strings.Cut(ids, ",")
				if t, ok := tags[tag]; ok {
					all = append(all, t)
				}
			}
			c.segments = append(c.segments, SegmentFact{ID: sg, CaptureID: id, OccurredAt: occurred})
			ends = append(ends, len(all))
		}
		start := 0
		for i, end := range ends {
			c.segments[i].Tags = all[start:end:end]
			start = end
		}
		each(c)
	}
	return rows.Err()
}

// detectionState reads the categories, the feelings vocabulary, the
// patterns and the reviewed correlations.
func detectionState(ctx context.Context, tx *sql.Tx, f *Facts, userID string) error {
	rows, err := tx.QueryContext(ctx, `SELECT id, user_id, kind, name, rejected_at IS NOT NULL FROM categories WHERE user_id = ?`, userID)
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
		var p PatternFact
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
		var c CorrelationFact
		if err := rows.Scan(&c.PatternID, &c.TagID, &c.Status); err != nil {
			return err
		}
		f.Correlations = append(f.Correlations, c)
	}
	return rows.Err()
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
	// FlowsBefore are the flows the caller saved last for the pattern, with
	// the LinksHash they were saved under in HashBefore. Where the stored
	// hash is still that one, the stored flows are these (a capture deleted
	// since takes its segments' flows with it, which the save allows for),
	// and they are compared with Flows without being read back: a pattern
	// of ten years has some 50,000.
	FlowsBefore []Flow
	HashBefore  string
	Loop        DetectedLoop // see links.go
}

// DetectedCorrelation is a correlation as a detection run found it.
type DetectedCorrelation struct {
	TagID  string
	Amount int
	Impact string
}

// detectionMapSize is how much of the database file a detection run reads
// through a memory map: its reads of the user's whole journal (about 30 MB
// for ten years) then come straight from the kernel's file cache instead of
// a read call per page, which took a quarter of a run. The map is made for
// the run alone, so other reads (an export, say) keep their memory small.
const detectionMapSize = 256 << 20

// viewMapped is view on a connection that reads the file through a memory
// map while fn runs.
func (s *Store) viewMapped(ctx context.Context, fn func(tx *sql.Tx) error) error {
	conn, err := s.read.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("PRAGMA mmap_size = %d", detectionMapSize)); err != nil {
		return err
	}
	// The map goes with the run, even when ctx ended meanwhile; a connection
	// that cannot drop it is not given back to the pool.
	defer func() {
		if _, err := conn.ExecContext(context.WithoutCancel(ctx), "PRAGMA mmap_size = 0"); err != nil {
			conn.Raw(func(any) error { return driver.ErrBadConn })
		}
	}()
	tx, err := conn.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	return fn(tx)
}
