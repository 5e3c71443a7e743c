package store

import (
	"context"
	"database/sql"
	"slices"
	"time"
)

// OriginImport marks captures brought in by an import.
const OriginImport = "import"

// ImportEntry is one entry of another journal, to become a capture.
type ImportEntry struct {
	OccurredAt time.Time
	Text       string
	Source     string // where in the upload it came from, for messages
}

// ImportResult is what an import did.
type ImportResult struct {
	Batch      *JobBatch
	Imported   int // captures made
	Duplicates int // entries the user already had, left out
}

// ImportCaptures makes a capture of every entry the user does not have yet
// (the same moment and the same text) and queues them for analysis, oldest
// first and behind entries written meanwhile, as one batch named name.
// Every entry is checked before anything is written: one that breaks a rule
// gives EINVALID under "file" naming its source, and nothing is imported.
func (s *Store) ImportCaptures(ctx context.Context, userID, name string, entries []ImportEntry) (*ImportResult, error) {
	now := s.Now()
	entries = slices.Clone(entries)
	slices.SortStableFunc(entries, func(a, b ImportEntry) int { return a.OccurredAt.Compare(b.OccurredAt) })
	for i := range entries {
		e := &entries[i]
		e.OccurredAt = e.OccurredAt.UTC().Truncate(time.Microsecond)
		c := Capture{Original: e.Text, OccurredAt: e.OccurredAt}
		if err := c.Validate(now); err != nil {
			return nil, Invalid("file", "%s: %s", e.Source, ErrorMessage(err))
		}
	}
	res := &ImportResult{}
	err := s.update(ctx, func(tx *sql.Tx) error {
		var err error
		res.Imported, res.Duplicates, res.Batch, err = importCaptures(ctx, tx, userID, name, entries, now)
		return err
	})
	return res, err
}

// importCaptures does the work of ImportCaptures inside tx.
func importCaptures(ctx context.Context, tx *sql.Tx, userID, name string, entries []ImportEntry, now time.Time) (imported, duplicates int, b *JobBatch, err error) {
	stamp := FormatTime(now)
	exists, err := tx.PrepareContext(ctx, `SELECT EXISTS (SELECT 1 FROM captures WHERE user_id = ? AND occurred_at = ? AND original = ?)`)
	if err != nil {
		return 0, 0, nil, err
	}
	defer exists.Close()
	insert, err := tx.PrepareContext(ctx, `INSERT INTO captures (id, user_id, original, origin, occurred_at, status, available_at, background, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, 'queued', ?, 1, ?, ?)`)
	if err != nil {
		return 0, 0, nil, err
	}
	defer insert.Close()
	var ids []string
	for _, e := range entries {
		at := FormatTime(e.OccurredAt)
		var dup bool
		if err := exists.QueryRowContext(ctx, userID, at, e.Text).Scan(&dup); err != nil {
			return 0, 0, nil, err
		}
		if dup {
			duplicates++
			continue
		}
		id := newID()
		available := queuePlace(now, len(ids), len(entries))
		if _, err := insert.ExecContext(ctx, id, userID, e.Text, OriginImport, at, available, stamp, stamp); err != nil {
			return 0, 0, nil, err
		}
		ids = append(ids, id)
	}
	bid, err := createBatch(ctx, tx, userID, BatchImport, name, ids, stamp)
	if err != nil {
		return 0, 0, nil, err
	}
	b, err = findBatch(ctx, tx, userID, bid)
	return len(ids), duplicates, b, err
}
