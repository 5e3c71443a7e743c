package store

import (
	"context"
	"database/sql"
	"time"
)

// CaptureStats counts captures across all users, for the metrics.
type CaptureStats struct {
	// ByStatus holds a count for every status of CaptureStatuses, zero
	// included.
	ByStatus map[CaptureStatus]int
	// OldestQueued is when the capture that has waited longest in the queue
	// was written; zero when nothing is queued.
	OldestQueued time.Time
}

// CaptureStats counts captures by status and finds the oldest queued one.
// It reads through the reader pool and writes nothing.
func (s *Store) CaptureStats(ctx context.Context) (CaptureStats, error) {
	st := CaptureStats{ByStatus: make(map[CaptureStatus]int, len(CaptureStatuses))}
	for _, status := range CaptureStatuses {
		st.ByStatus[status] = 0
	}
	rows, err := s.read.QueryContext(ctx, `SELECT status, count(*) FROM captures GROUP BY status`)
	if err != nil {
		return st, err
	}
	defer rows.Close()
	for rows.Next() {
		var status CaptureStatus
		var n int
		if err := rows.Scan(&status, &n); err != nil {
			return st, err
		}
		st.ByStatus[status] = n
	}
	if err := rows.Err(); err != nil {
		return st, err
	}
	var oldest sql.NullString
	if err := s.read.QueryRowContext(ctx, `SELECT min(created_at) FROM captures WHERE status = 'queued'`).Scan(&oldest); err != nil {
		return st, err
	}
	if oldest.Valid {
		if st.OldestQueued, err = ParseTime(oldest.String); err != nil {
			return st, err
		}
	}
	return st, nil
}
