package store

import (
	"context"
	"database/sql"
	"time"
)

// ClaimPlan returns SQLite's query plan for the claim's selection, one
// line per step, to check which index it uses.
func (s *Store) ClaimPlan(ctx context.Context) ([]string, error) {
	return queryPlan(ctx, s.write, claimNext, FormatTime(s.Now()))
}

// SeedQueue queues n captures spread over the users, in one transaction,
// each ready since a moment before now.
func (s *Store) SeedQueue(ctx context.Context, userIDs []string, n int) error {
	return s.update(ctx, func(tx *sql.Tx) error {
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO captures (id, user_id, original, origin, occurred_at, status, available_at, created_at, updated_at)
			VALUES (?, ?, 'A queued entry.', 'text', ?, 'queued', ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		start := s.Now().Add(-time.Duration(n) * time.Millisecond)
		for i := range n {
			at := FormatTime(start.Add(time.Duration(i) * time.Millisecond))
			if _, err := stmt.ExecContext(ctx, newID(), userIDs[i%len(userIDs)], at, at, at, at); err != nil {
				return err
			}
		}
		return nil
	})
}
