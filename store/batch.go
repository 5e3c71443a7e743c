package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/recur-journal/recur/internal/english"
)

// Job batch kinds.
const (
	BatchImport    = "import"
	BatchReanalyse = "reanalyse"
)

// JobBatch is bulk work the user started: its jobs are capture runs.
type JobBatch struct {
	ID          string
	UserID      string
	Kind        string
	Name        string
	Total       int
	Pending     int
	Processed   int
	Failed      int
	Cancelled   int
	CreatedAt   time.Time
	FinishedAt  *time.Time
	CancelledAt *time.Time
}

// Progress is the share of the batch's jobs that have ended, in percent,
// rounded down so that 100 means done. An empty batch is done.
func (b *JobBatch) Progress() int {
	if b.Total == 0 {
		return 100
	}
	return (b.Total - b.Pending) * 100 / b.Total
}

// FindJobBatch returns the user's batch with its counts. Another user's
// batch is ENOTFOUND.
func (s *Store) FindJobBatch(ctx context.Context, userID, id string) (*JobBatch, error) {
	var b *JobBatch
	err := s.view(ctx, func(tx *sql.Tx) error {
		var err error
		b, err = findBatch(ctx, tx, userID, id)
		return err
	})
	return b, err
}

func findBatch(ctx context.Context, tx *sql.Tx, userID, id string) (*JobBatch, error) {
	var b JobBatch
	err := tx.QueryRowContext(ctx, `SELECT b.id, b.user_id, b.kind, b.name, b.created_at, b.finished_at, b.cancelled_at,
		count(j.position),
		count(*) FILTER (WHERE j.state = 'pending'),
		count(*) FILTER (WHERE j.state = 'processed'),
		count(*) FILTER (WHERE j.state = 'failed'),
		count(*) FILTER (WHERE j.state = 'cancelled')
		FROM job_batches b LEFT JOIN batch_jobs j ON j.batch_id = b.id
		WHERE b.id = ? AND b.user_id = ? GROUP BY b.id`, id, userID).
		Scan(&b.ID, &b.UserID, &b.Kind, &b.Name, dbTime{&b.CreatedAt}, dbNullTime{&b.FinishedAt}, dbNullTime{&b.CancelledAt},
			&b.Total, &b.Pending, &b.Processed, &b.Failed, &b.Cancelled)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, NotFound("Job batch")
	} else if err != nil {
		return nil, err
	}
	return &b, nil
}

// createBatch starts a batch of the given captures, in that order, and marks
// it finished at once when there is nothing to do.
func createBatch(ctx context.Context, tx *sql.Tx, userID, kind, name string, captureIDs []string, now string) (string, error) {
	id := newID()
	var finished any
	if len(captureIDs) == 0 {
		finished = now
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO job_batches (id, user_id, kind, name, created_at, finished_at) VALUES (?, ?, ?, ?, ?, ?)`,
		id, userID, kind, name, now, finished); err != nil {
		return "", err
	}
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO batch_jobs (batch_id, capture_id, position) VALUES (?, ?, ?)`)
	if err != nil {
		return "", err
	}
	defer stmt.Close()
	for i, cid := range captureIDs {
		if _, err := stmt.ExecContext(ctx, id, cid, i); err != nil {
			return "", err
		}
	}
	return id, nil
}

// settleJobs records how the run of a capture ended (processed or failed)
// in every batch that waits for it, and marks the batches that have nothing
// left finished.
func settleJobs(ctx context.Context, tx *sql.Tx, captureID string, state CaptureStatus, now string) error {
	if _, err := tx.ExecContext(ctx, `UPDATE batch_jobs SET state = ? WHERE capture_id = ? AND state = 'pending'`, state, captureID); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `UPDATE job_batches SET finished_at = ?
		WHERE finished_at IS NULL AND cancelled_at IS NULL
		AND id IN (SELECT batch_id FROM batch_jobs WHERE capture_id = ?)
		AND NOT EXISTS (SELECT 1 FROM batch_jobs j WHERE j.batch_id = job_batches.id AND j.state = 'pending')`, now, captureID)
	return err
}

// Reanalyse queues every capture of the user for a new run, oldest first and
// behind entries written meanwhile, as one batch. An unfinished earlier
// re-analysis is cancelled: the new batch covers its captures too.
func (s *Store) Reanalyse(ctx context.Context, userID string) (*JobBatch, error) {
	var b *JobBatch
	err := s.update(ctx, func(tx *sql.Tx) error {
		now := s.Now()
		stamp := FormatTime(now)
		if _, err := tx.ExecContext(ctx, `UPDATE batch_jobs SET state = 'cancelled' WHERE state = 'pending' AND batch_id IN
			(SELECT id FROM job_batches WHERE user_id = ? AND kind = ? AND finished_at IS NULL AND cancelled_at IS NULL)`,
			userID, BatchReanalyse); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE job_batches SET cancelled_at = ?
			WHERE user_id = ? AND kind = ? AND finished_at IS NULL AND cancelled_at IS NULL`, stamp, userID, BatchReanalyse); err != nil {
			return err
		}
		ids, err := queryStrings(ctx, tx, `SELECT id FROM captures WHERE user_id = ? ORDER BY occurred_at, id`, userID)
		if err != nil {
			return err
		}
		// A capture already queued or processing keeps its place: its
		// run is the new one.
		stmt, err := tx.PrepareContext(ctx, `UPDATE captures SET status = 'queued', attempts = 0, background = 1, available_at = ?, updated_at = ?
			WHERE id = ? AND status IN ('processed', 'failed')`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for i, id := range ids {
			if _, err := stmt.ExecContext(ctx, queuePlace(now, i, len(ids)), stamp, id); err != nil {
				return err
			}
		}
		name := fmt.Sprintf("Re-analysis of %d %s", len(ids), english.Plural(len(ids), "entry", "entries"))
		bid, err := createBatch(ctx, tx, userID, BatchReanalyse, name, ids, stamp)
		if err != nil {
			return err
		}
		b, err = findBatch(ctx, tx, userID, bid)
		return err
	})
	return b, err
}

// queuePlace is the available_at of the i-th of n captures queued together:
// a microsecond apart, so the queue keeps their order, and all ready now.
func queuePlace(now time.Time, i, n int) string {
	return FormatTime(now.Add(-time.Duration(n-i) * time.Microsecond))
}

// queryStrings returns the first column of every row.
func queryStrings(ctx context.Context, tx *sql.Tx, query string, args ...any) ([]string, error) {
	return queryAll(ctx, tx, func(row interface{ Scan(...any) error }) (v string, err error) {
		err = row.Scan(&v)
		return v, err
	}, query, args...)
}
