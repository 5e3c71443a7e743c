package store

import "context"

// DetectionPlan returns SQLite's query plan for reading a user's captures
// and segments for detection, one line per step.
func (s *Store) DetectionPlan(ctx context.Context, userID string) ([]string, error) {
	return queryPlan(ctx, s.read, userFactsQuery, userID)
}
