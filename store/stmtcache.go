package store

import (
	"context"
	"database/sql"
	"errors"
	"sync"
)

// stmtCache holds the statements of the hot queries (authentication, list
// pages, a capture's read, the queue's claim), each prepared once for a
// pool and then once per connection of it, so SQLite parses and plans such
// a query once instead of on every call. Only fixed query texts go in: the
// cache never forgets one.
//
// Preparing on the pool needs a free connection of it. Inside a transaction
// the caller already holds one, and were every holder to wait for another,
// none would come; so a transaction never prepares on the pool: it runs a
// statement it does not find as a plain query and notes it, and the
// statement is prepared once the transaction has ended (see
// Store.viewPrepared and Store.updatePrepared).
type stmtCache struct {
	db    *sql.DB
	mu    sync.Mutex
	stmts map[string]*sql.Stmt // nil once closed
}

func newStmtCache(db *sql.DB) *stmtCache {
	return &stmtCache{db: db, stmts: map[string]*sql.Stmt{}}
}

var errCacheClosed = errors.New("store: closed")

// lookup returns the statement of query, or nil if it is not prepared yet.
func (c *stmtCache) lookup(query string) *sql.Stmt {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stmts[query]
}

// prepare returns the statement of query, preparing it first if needed. The
// caller must hold no connection of the pool.
func (c *stmtCache) prepare(ctx context.Context, query string) (*sql.Stmt, error) {
	if st := c.lookup(query); st != nil {
		return st, nil
	}
	// Prepared outside the lock: a prepare may wait for a connection.
	st, err := c.db.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stmts == nil {
		st.Close()
		return nil, errCacheClosed
	}
	if prev := c.stmts[query]; prev != nil {
		st.Close()
		return prev, nil
	}
	c.stmts[query] = st
	return st, nil
}

// QueryContext runs query, outside any transaction, as its statement.
func (c *stmtCache) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	st, err := c.prepare(ctx, query)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(ctx, args...)
}

// QueryRowContext runs query, outside any transaction, as its statement.
func (c *stmtCache) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	st, err := c.prepare(ctx, query)
	if err != nil {
		// The plain query meets the same error, and Scan reports it.
		return c.db.QueryRowContext(ctx, query, args...)
	}
	return st.QueryRowContext(ctx, args...)
}

// close closes every statement; later prepares fail.
func (c *stmtCache) close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var errs []error
	for _, st := range c.stmts {
		errs = append(errs, st.Close())
	}
	c.stmts = nil
	return errors.Join(errs...)
}

// preparedTx is a transaction whose queries run as the cache's statements.
// A statement must not run again while rows it returned are still open in
// the same transaction: the connection has one copy of it.
type preparedTx struct {
	*sql.Tx
	cache  *stmtCache
	missed *[]string // queries to prepare once the transaction has ended
}

// QueryContext runs query within the transaction.
func (t preparedTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st := t.cache.lookup(query); st != nil {
		return t.Tx.StmtContext(ctx, st).QueryContext(ctx, args...)
	}
	*t.missed = append(*t.missed, query)
	return t.Tx.QueryContext(ctx, query, args...)
}

// QueryRowContext runs query within the transaction.
func (t preparedTx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if st := t.cache.lookup(query); st != nil {
		return t.Tx.StmtContext(ctx, st).QueryRowContext(ctx, args...)
	}
	*t.missed = append(*t.missed, query)
	return t.Tx.QueryRowContext(ctx, query, args...)
}

// ExecContext runs query within the transaction.
func (t preparedTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if st := t.cache.lookup(query); st != nil {
		return t.Tx.StmtContext(ctx, st).ExecContext(ctx, args...)
	}
	*t.missed = append(*t.missed, query)
	return t.Tx.ExecContext(ctx, query, args...)
}

// run runs fn in a transaction begun by within, its queries as the cache's
// statements, and then prepares those it did not find.
func (c *stmtCache) run(ctx context.Context, within func(context.Context, func(*sql.Tx) error) error, fn func(tx preparedTx) error) error {
	var missed []string
	err := within(ctx, func(tx *sql.Tx) error { return fn(preparedTx{Tx: tx, cache: c, missed: &missed}) })
	for _, q := range missed {
		// A statement that will not prepare fails as a plain query too,
		// which reports it; here it is simply tried again next time.
		_, _ = c.prepare(ctx, q)
	}
	return err
}

// viewPrepared is view for the hot reads: fn's queries run as statements
// prepared once per connection.
func (s *Store) viewPrepared(ctx context.Context, fn func(tx preparedTx) error) error {
	return s.reads.run(ctx, s.view, fn)
}

// updatePrepared is update for the hot writes: fn's queries run as
// statements prepared once per connection.
func (s *Store) updatePrepared(ctx context.Context, fn func(tx preparedTx) error) error {
	return s.writes.run(ctx, s.update, fn)
}
