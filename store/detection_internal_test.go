package store

import (
	"context"
	"fmt"
)

// DetectionPlan returns SQLite's query plan for reading a user's captures
// and segments for detection, one line per step.
func (s *Store) DetectionPlan(ctx context.Context, userID string) ([]string, error) {
	return queryPlan(ctx, s.read, detectionCapturesQuery, userID)
}

// queryPlan returns SQLite's plan for the query, one line per step.
func queryPlan(ctx context.Context, q querier, query string, args ...any) ([]string, error) {
	rows, err := q.QueryContext(ctx, `EXPLAIN QUERY PLAN `+query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			return nil, err
		}
		plan = append(plan, fmt.Sprintf("%d<-%d %s", id, parent, detail))
	}
	return plan, rows.Err()
}
