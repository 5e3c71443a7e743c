package store

import (
	"context"
	"fmt"
)

// CaptureListPlan returns SQLite's query plan for a page of a user's
// captures, one line per step, to check which index it uses.
func (s *Store) CaptureListPlan(ctx context.Context) ([]string, error) {
	q := captureList("someone")
	rows, err := s.read.QueryContext(ctx, `EXPLAIN QUERY PLAN `+q.page(), append(q.args, 15, 300)...)
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
