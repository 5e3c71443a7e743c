package store

import "context"

// DetectionPlan returns SQLite's query plan for reading a user's captures
// and segments for detection, one line per step.
func (s *Store) DetectionPlan(ctx context.Context, userID string) ([]string, error) {
	return queryPlan(ctx, s.read, userFactsQuery, userID)
}

// FactsReadTo returns how far c has read the user's noted changes and how
// far they were pruned; ok is false when c holds nothing of the user.
func (s *Store) FactsReadTo(ctx context.Context, c *FactsCache, userID string) (read, pruned int64, ok bool, err error) {
	f := c.peek(userID)
	if f == nil {
		return 0, 0, false, nil
	}
	err = s.read.QueryRowContext(ctx, `SELECT coalesce((SELECT seq FROM detection_pruned WHERE user_id = ?), 0)`, userID).Scan(&pruned)
	return f.seq, pruned, true, err
}
