package store

import (
	"context"
	"fmt"
)

// CaptureListPlan returns SQLite's query plan for a page of a user's
// captures, one line per step, to check which index it uses.
func (s *Store) CaptureListPlan(ctx context.Context) ([]string, error) {
	q := captureList("someone")
	return queryPlan(ctx, s.read, q.page(), append(q.args, 15, 300)...)
}

// queryPlan returns SQLite's plan for query, one line per step.
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
