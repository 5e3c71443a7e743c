package store

import (
	"cmp"
	"context"
	"database/sql"
	"slices"
)

// factsUsers bounds the users whose situations a FactsCache keeps: ten
// years of writing are some 100,000 situations, about 16 MB.
const factsUsers = 4

// factsChangesAtMost is how many changed captures a run reads on their
// own; past that (an import, a restore) it reads the journal whole.
const factsChangesAtMost = 2000

// FactsCache keeps what detection read of users' journals between runs,
// so that a run reads again only the captures changed since the last one
// (detection_changes notes them) instead of the whole journal. The facts
// it gives are those DetectionFacts reads: the same captures, segments and
// tags, but tags numbered in the order the cache first saw them. Runs of
// one user must not overlap.
type FactsCache struct{ recentUsers[cachedFacts] }

// cachedFacts is one user's journal as read up to seq.
type cachedFacts struct {
	seq      int64
	tagNum   map[string]int32
	tags     []TagFact     // by number
	captures []factCapture // by time, then id
	since    *FactsChange  // what the last refresh changed; nil when it read whole
	// refs and segments are the captures and their segments as Facts gives
	// them, kept between reads: those of the first valid captures are
	// current, and a read makes the rest only (new entries come last).
	refs     []CaptureRef
	segments []SegmentFact
	valid    int
}

// CachedDetectionFacts returns, in one snapshot, what DetectionFacts does,
// reading from the database only the captures changed since the user's
// last read through c. The cache is kept up to date only once the facts
// are read whole; a read that fails leaves nothing of the user in it. The
// captures and segments of the facts are the cache's own, kept between
// reads: they hold until the next read of the user through c.
func (s *Store) CachedDetectionFacts(ctx context.Context, c *FactsCache, userID string) (*Facts, error) {
	cached := c.take(userID)
	f := &Facts{}
	err := s.viewMapped(ctx, func(tx *sql.Tx) error {
		var err error
		if cached, err = refreshFacts(ctx, tx, cached, userID); err != nil {
			return err
		}
		f.Tags = slices.Clone(cached.tags)
		f.Captures, f.Segments = cached.flatten()
		f.Since = cached.since
		return detectionState(ctx, tx, f, userID)
	})
	if err != nil {
		return nil, err
	}
	c.put(userID, cached, factsUsers)
	return f, nil
}

// refreshFacts brings the user's cached facts up to the snapshot of tx,
// reading them whole when there are none, when notes they would need were
// pruned, when the notes are behind them (the database was put back), when
// too many captures changed, or when a tag they number was deleted.
func refreshFacts(ctx context.Context, tx *sql.Tx, cached *cachedFacts, userID string) (*cachedFacts, error) {
	seq, changed, list, whole, err := detectionNotes.since(ctx, tx, userID, cached != nil, cachedSeq(cached), factsChangesAtMost)
	if err != nil {
		return nil, err
	} else if whole {
		return wholeFacts(ctx, tx, userID, seq)
	}
	kept, retagged, err := numberTags(ctx, tx, cached, userID)
	if err != nil {
		return nil, err
	} else if !kept {
		return wholeFacts(ctx, tx, userID, seq)
	}
	cached.seq = seq
	cached.since = &FactsChange{}
	if retagged {
		cached.since = nil
	}
	if len(changed) == 0 {
		return cached, nil
	}
	gone := make(map[string]bool, len(changed))
	for _, id := range changed {
		gone[id] = true
	}
	if i := slices.IndexFunc(cached.captures, func(cp factCapture) bool { return gone[cp.id] }); i >= 0 {
		cached.valid = min(cached.valid, i)
	}
	cached.captures = slices.DeleteFunc(cached.captures, func(cp factCapture) bool {
		if gone[cp.id] && cached.since != nil {
			cached.since.Segments = append(cached.since.Segments, cp.segments...)
		}
		return gone[cp.id]
	})
	var read []factCapture
	err = scanDetectionCaptures(ctx, tx, cached.tagNum, func(cp factCapture) {
		read = append(read, cp)
		if cached.since != nil {
			cached.since.Segments = append(cached.since.Segments, cp.segments...)
		}
	}, detectionCapturesQuery+`c.id IN (SELECT value FROM json_each(?)) AND +c.user_id = ? AND +c.status = 'processed'`, list, userID)
	if err != nil {
		return nil, err
	}
	// The captures read go where their time puts them; those before the
	// first of them stay where they were.
	var first int
	cached.captures, first = mergeIn(cached.captures, read, func(a, b factCapture) int {
		return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.id, b.id))
	})
	cached.valid = min(cached.valid, first)
	return cached, nil
}

// flatten returns the captures and their segments in order, making again
// only those after the first valid captures. What it returns holds until
// the next read of the cache changes it.
func (cached *cachedFacts) flatten() ([]CaptureRef, []SegmentFact) {
	valid := min(cached.valid, len(cached.captures), len(cached.refs))
	n := 0
	for _, cp := range cached.captures[:valid] {
		n += len(cp.segments)
	}
	cached.refs, cached.segments = cached.refs[:valid], cached.segments[:n]
	for _, cp := range cached.captures[valid:] {
		cached.refs = append(cached.refs, CaptureRef{ID: cp.id, Status: StatusProcessed, OccurredAt: cp.occurred})
		cached.segments = append(cached.segments, cp.segments...)
	}
	cached.valid = len(cached.captures)
	return cached.refs, cached.segments
}

// wholeFacts reads the user's captures and tags whole, as of seq.
func wholeFacts(ctx context.Context, tx *sql.Tx, userID string, seq int64) (*cachedFacts, error) {
	cached := &cachedFacts{seq: seq, tagNum: map[string]int32{}}
	if _, _, err := numberTags(ctx, tx, cached, userID); err != nil {
		return nil, err
	}
	err := scanDetectionCaptures(ctx, tx, cached.tagNum, func(cp factCapture) { cached.captures = append(cached.captures, cp) },
		userFactsQuery, userID)
	return cached, err
}

// numberTags reads the user's tags into the cache, numbering those it has
// not seen yet after those it has. It reports kept false when one it
// numbered is gone, and retagged when one it numbered reads otherwise now.
func numberTags(ctx context.Context, tx *sql.Tx, cached *cachedFacts, userID string) (kept, retagged bool, err error) {
	rows, err := tx.QueryContext(ctx, `SELECT id, type, name, coalesce(category_id, ''), coalesce(feeling_id, '') FROM tags WHERE user_id = ?`, userID)
	if err != nil {
		return false, false, err
	}
	defer rows.Close()
	before, seen := len(cached.tags), 0
	for rows.Next() {
		var t TagFact
		if err := rows.Scan(&t.ID, &t.Type, &t.Name, &t.CategoryID, &t.FeelingID); err != nil {
			return false, false, err
		}
		if n, ok := cached.tagNum[t.ID]; ok {
			retagged = retagged || cached.tags[n] != t
			cached.tags[n] = t
			seen++
			continue
		}
		cached.tagNum[t.ID] = int32(len(cached.tags))
		cached.tags = append(cached.tags, t)
	}
	return seen == before, retagged, rows.Err()
}

// PruneDetectionChanges deletes the notes of the user's changes that c has
// read, and notes up to where: any other reader that read less reads the
// user's journal whole next time.
func (s *Store) PruneDetectionChanges(ctx context.Context, c *FactsCache, userID string) error {
	f := c.peek(userID)
	if f == nil {
		return nil
	}
	return s.update(ctx, func(tx *sql.Tx) error { return detectionNotes.prune(ctx, tx, userID, f.seq) })
}

// cachedSeq is how far the cached facts were read, or 0 for none.
func cachedSeq(f *cachedFacts) int64 {
	if f == nil {
		return 0
	}
	return f.seq
}
