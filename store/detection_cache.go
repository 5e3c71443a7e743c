package store

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"slices"
	"sync"
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
type FactsCache struct {
	mu    sync.Mutex
	users map[string]*cachedFacts
	order []string // users, least recently read first
}

// cachedFacts is one user's journal as read up to seq.
type cachedFacts struct {
	seq      int64
	tagNum   map[string]int32
	tags     []TagFact     // by number
	captures []factCapture // by time, then id
}

// take removes the user's facts from the cache and returns them, or nil.
func (c *FactsCache) take(userID string) *cachedFacts {
	c.mu.Lock()
	defer c.mu.Unlock()
	f := c.users[userID]
	delete(c.users, userID)
	if i := slices.Index(c.order, userID); i >= 0 {
		c.order = slices.Delete(c.order, i, i+1)
	}
	return f
}

// put keeps the user's facts as the most recently read.
func (c *FactsCache) put(userID string, f *cachedFacts) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.users == nil {
		c.users = map[string]*cachedFacts{}
	}
	c.users[userID] = f
	c.order = append(c.order, userID)
	for len(c.order) > factsUsers {
		delete(c.users, c.order[0])
		c.order = c.order[1:]
	}
}

// CachedDetectionFacts returns, in one snapshot, what DetectionFacts does,
// reading from the database only the captures changed since the user's
// last read through c. The cache is kept up to date only once the facts
// are read whole; a read that fails leaves nothing of the user in it.
func (s *Store) CachedDetectionFacts(ctx context.Context, c *FactsCache, userID string) (*Facts, error) {
	cached := c.take(userID)
	f := &Facts{}
	err := s.viewMapped(ctx, func(tx *sql.Tx) error {
		var err error
		if cached, err = refreshFacts(ctx, tx, cached, userID); err != nil {
			return err
		}
		f.Tags = slices.Clone(cached.tags)
		f.Captures = make([]CaptureRef, len(cached.captures))
		n := 0
		for i, cp := range cached.captures {
			f.Captures[i] = CaptureRef{ID: cp.id, Status: StatusProcessed, OccurredAt: cp.occurred}
			n += len(cp.segments)
		}
		f.Segments = make([]SegmentFact, 0, n)
		for _, cp := range cached.captures {
			f.Segments = append(f.Segments, cp.segments...)
		}
		return detectionState(ctx, tx, f, userID)
	})
	if err != nil {
		return nil, err
	}
	c.put(userID, cached)
	return f, nil
}

// refreshFacts brings the user's cached facts up to the snapshot of tx,
// reading them whole when there are none, when notes they would need were
// pruned, when the notes are behind them (the database was put back), when
// too many captures changed, or when a tag they number was deleted.
func refreshFacts(ctx context.Context, tx *sql.Tx, cached *cachedFacts, userID string) (*cachedFacts, error) {
	// The last seq given, even when its note was pruned since.
	var seq, pruned int64
	if err := tx.QueryRowContext(ctx, `SELECT coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'detection_changes'), 0)`).Scan(&seq); err != nil {
		return nil, err
	}
	if err := tx.QueryRowContext(ctx, `SELECT coalesce((SELECT seq FROM detection_pruned WHERE user_id = ?), 0)`, userID).Scan(&pruned); err != nil {
		return nil, err
	}
	if cached == nil || cached.seq < pruned || seq < cached.seq { // the last: another database now
		return wholeFacts(ctx, tx, userID, seq)
	}
	var list string
	err := tx.QueryRowContext(ctx, `SELECT json_group_array(capture_id) FROM (SELECT DISTINCT capture_id FROM detection_changes
		WHERE user_id = ? AND seq > ? LIMIT ?)`, userID, cached.seq, factsChangesAtMost+1).Scan(&list)
	if err != nil {
		return nil, err
	}
	var changed []string
	if err := json.Unmarshal([]byte(list), &changed); err != nil {
		return nil, err
	}
	if len(changed) > factsChangesAtMost {
		return wholeFacts(ctx, tx, userID, seq)
	}
	if ok, err := numberTags(ctx, tx, cached, userID); err != nil {
		return nil, err
	} else if !ok {
		return wholeFacts(ctx, tx, userID, seq)
	}
	cached.seq = seq
	if len(changed) == 0 {
		return cached, nil
	}
	gone := make(map[string]bool, len(changed))
	for _, id := range changed {
		gone[id] = true
	}
	cached.captures = slices.DeleteFunc(cached.captures, func(cp factCapture) bool { return gone[cp.id] })
	err = scanDetectionCaptures(ctx, tx, cached.tagNum, func(cp factCapture) { cached.captures = append(cached.captures, cp) },
		detectionCapturesQuery+`c.id IN (SELECT value FROM json_each(?)) AND +c.user_id = ? AND +c.status = 'processed'`, list, userID)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(cached.captures, func(a, b factCapture) int {
		return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.id, b.id))
	})
	return cached, nil
}

// wholeFacts reads the user's captures and tags whole, as of seq.
func wholeFacts(ctx context.Context, tx *sql.Tx, userID string, seq int64) (*cachedFacts, error) {
	cached := &cachedFacts{seq: seq, tagNum: map[string]int32{}}
	if _, err := numberTags(ctx, tx, cached, userID); err != nil {
		return nil, err
	}
	err := scanDetectionCaptures(ctx, tx, cached.tagNum, func(cp factCapture) { cached.captures = append(cached.captures, cp) },
		userFactsQuery, userID)
	return cached, err
}

// numberTags reads the user's tags into the cache, numbering those it has
// not seen yet after those it has, and reports false when one it numbered
// is gone.
func numberTags(ctx context.Context, tx *sql.Tx, cached *cachedFacts, userID string) (bool, error) {
	rows, err := tx.QueryContext(ctx, `SELECT id, type, name, coalesce(category_id, ''), coalesce(feeling_id, '') FROM tags WHERE user_id = ?`, userID)
	if err != nil {
		return false, err
	}
	defer rows.Close()
	before, seen := len(cached.tags), 0
	for rows.Next() {
		var t TagFact
		if err := rows.Scan(&t.ID, &t.Type, &t.Name, &t.CategoryID, &t.FeelingID); err != nil {
			return false, err
		}
		if n, ok := cached.tagNum[t.ID]; ok {
			cached.tags[n] = t
			seen++
			continue
		}
		cached.tagNum[t.ID] = int32(len(cached.tags))
		cached.tags = append(cached.tags, t)
	}
	return seen == before, rows.Err()
}

// PruneDetectionChanges deletes the notes of the user's changes that c has
// read, and notes up to where: any other reader that read less reads the
// user's journal whole next time.
func (s *Store) PruneDetectionChanges(ctx context.Context, c *FactsCache, userID string) error {
	c.mu.Lock()
	f := c.users[userID]
	c.mu.Unlock()
	if f == nil {
		return nil
	}
	return s.update(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM detection_changes WHERE user_id = ? AND seq <= ?`, userID, f.seq)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO detection_pruned (user_id, seq) VALUES (?, ?)
			ON CONFLICT (user_id) DO UPDATE SET seq = max(seq, excluded.seq)`, userID, f.seq)
		return err
	})
}
