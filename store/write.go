package store

import (
	"context"
	"encoding/json"
	"errors"
	"runtime"
	"sync"
	"time"
)

// CreateCapture validates c and queues it for analysis. It returns only
// once c is committed, so an answer sent after it is durable. Entries
// written at the same time are committed together (see createGroup). It
// returns EINVALID, ENOTFOUND for a user that no longer exists, and
// EINTERNAL once the store is closed.
func (s *Store) CreateCapture(ctx context.Context, c *Capture) error {
	now := s.Now()
	if c.OccurredAt.IsZero() {
		c.OccurredAt = now
	}
	c.OccurredAt = c.OccurredAt.UTC().Truncate(time.Microsecond)
	// Validated before it joins others, so that a bad entry is refused on
	// its own and never fails a batch.
	if err := c.Validate(now); err != nil {
		return err
	}
	c.ID, c.Status, c.CreatedAt, c.UpdatedAt = newID(), StatusQueued, now, now
	if c.Origin == "" {
		c.Origin = "text"
	}
	return s.creates.do(ctx, s, c)
}

// insertCaptures queues validated captures, given as a JSON array of rows
// (captureRow), in one statement. One statement, not one per entry,
// because the search index (FTS5) writes what it holds to disk at the
// start of every statement inside a transaction: one statement per entry
// would leave a segment per entry to write and merge later, and one per
// batch leaves one.
const insertCaptures = `INSERT INTO captures (id, user_id, original, origin, occurred_at, status, available_at, created_at, updated_at)
	SELECT value->>0, value->>1, value->>2, value->>3, value->>4, value->>5, value->>6, value->>6, value->>7
	FROM json_each(?) ORDER BY key`

// captureRow is a capture as insertCaptures reads it: its created_at is
// also when it may be claimed.
type captureRow [8]string

// captureRows renders the entries of reqs for insertCaptures.
func captureRows(reqs []*createRequest) (string, error) {
	rows := make([]captureRow, len(reqs))
	for i, r := range reqs {
		c := r.c
		rows[i] = captureRow{c.ID, c.UserID, c.Original, c.Origin, FormatTime(c.OccurredAt), string(c.Status), FormatTime(c.CreatedAt), FormatTime(c.UpdatedAt)}
	}
	b, err := json.Marshal(rows)
	return string(b), err
}

// maxCreateBatch bounds how many entries one transaction commits, so that
// other writers (a claim, a run's commit) wait for one short transaction
// at most.
const maxCreateBatch = 64

// errStoreClosed answers a write that arrives after Close began.
var errStoreClosed = Errorf(EINTERNAL, "The database is closed.")

// createGroup commits entries written at the same time in one transaction.
// SQLite has one writer and each commit has a fixed cost (starting the
// transaction, writing the changed pages to the log, a new segment of the
// search index), so sixteen entries committed together cost little more
// than one.
//
// It needs no goroutine of its own: the first caller to find no commit
// under way leads. The leader takes what is waiting (its own entry first),
// commits it and answers each caller; if more arrived meanwhile, it hands
// the lead to the first of those and returns. Every caller is answered only
// after its entry was committed, or with the error that stopped it.
//
// The zero value is ready to use.
type createGroup struct {
	mu      sync.Mutex
	idle    sync.Cond // signalled when leading turns false
	queue   []*createRequest
	leading bool // a caller is committing; queue not empty implies leading
	closed  bool
}

// createRequest is one caller's entry waiting in a createGroup.
type createRequest struct {
	ctx context.Context
	c   *Capture
	// done receives errLead when the caller is to lead, then (or instead)
	// the outcome of its entry.
	done chan error
}

// errLead tells a waiting caller that it leads the next commit.
var errLead = errors.New("lead the next commit")

// do commits c, together with whatever else is waiting.
func (g *createGroup) do(ctx context.Context, s *Store, c *Capture) error {
	r := &createRequest{ctx: ctx, c: c, done: make(chan error, 1)}
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return errStoreClosed
	}
	g.queue = append(g.queue, r)
	lead := !g.leading
	g.leading = true
	g.mu.Unlock()

	if !lead {
		if err := <-r.done; err != errLead {
			return err
		}
	}
	// Let the callers that are about to ask join this commit: with
	// sixteen clients this triples the entries a commit carries, and with
	// one it costs nothing, as no one else is waiting to run.
	runtime.Gosched()
	g.mu.Lock()
	n := min(len(g.queue), maxCreateBatch)
	batch := make([]*createRequest, n)
	copy(batch, g.queue)
	g.queue = append(g.queue[:0], g.queue[n:]...)
	g.mu.Unlock()

	// The batch is not one caller's: a caller that hangs up must not undo
	// the others' entries.
	s.commitCreates(context.WithoutCancel(ctx), batch)

	g.mu.Lock()
	if len(g.queue) > 0 {
		g.queue[0].done <- errLead
	} else {
		g.leading = false
		g.idle.Broadcast()
	}
	g.mu.Unlock()
	return <-r.done
}

// close refuses further entries and waits until those already waiting are
// committed (or have failed).
func (g *createGroup) close() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.closed = true
	if g.idle.L == nil {
		g.idle.L = &g.mu
	}
	for g.leading {
		g.idle.Wait()
	}
	return nil
}

// commitCreates commits the batch in one transaction and answers each
// request. If that transaction fails, each entry is tried again on its
// own, so that one entry that cannot be stored (its user was deleted
// meanwhile) does not take the others down with it. A request whose caller
// gave up before its turn is answered with its context's error.
func (s *Store) commitCreates(ctx context.Context, batch []*createRequest) {
	live := batch[:0:0]
	for _, r := range batch {
		if err := r.ctx.Err(); err != nil {
			r.done <- err
			continue
		}
		live = append(live, r)
	}
	if len(live) == 0 {
		return
	}
	err := s.insertBatch(ctx, live)
	if err == nil || len(live) == 1 {
		for _, r := range live {
			r.done <- err
		}
		return
	}
	for _, r := range live {
		r.done <- s.insertBatch(ctx, []*createRequest{r})
	}
}

// insertBatch commits the entries of reqs in one transaction, with the
// insert prepared once on the writer: SQLite compiles it, with the search
// index's trigger, once rather than for every batch.
func (s *Store) insertBatch(ctx context.Context, reqs []*createRequest) error {
	rows, err := captureRows(reqs)
	if err != nil {
		return err
	}
	return s.updatePrepared(ctx, func(tx preparedTx) error {
		_, err := tx.ExecContext(ctx, insertCaptures, rows)
		return err
	})
}
