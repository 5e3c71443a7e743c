package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/alexedwards/scs/v2"
)

// Sessions is the browser session store for scs, kept in the database.
type Sessions struct{ s *Store }

var _ scs.CtxStore = (*Sessions)(nil)

// Sessions returns the session store.
func (s *Store) Sessions() *Sessions { return &Sessions{s} }

// FindCtx implements scs.CtxStore: an unknown or expired token is not found.
func (ss *Sessions) FindCtx(ctx context.Context, token string) ([]byte, bool, error) {
	var b []byte
	err := ss.s.read.QueryRowContext(ctx, `SELECT data FROM sessions WHERE token = ? AND expiry > ?`, token, FormatTime(ss.s.Now())).Scan(&b)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	return b, err == nil, err
}

// CommitCtx implements scs.CtxStore.
func (ss *Sessions) CommitCtx(ctx context.Context, token string, b []byte, expiry time.Time) error {
	return ss.s.update(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO sessions (token, data, expiry) VALUES (?, ?, ?)
			ON CONFLICT (token) DO UPDATE SET data = excluded.data, expiry = excluded.expiry`, token, b, FormatTime(expiry))
		return err
	})
}

// DeleteCtx implements scs.CtxStore.
func (ss *Sessions) DeleteCtx(ctx context.Context, token string) error {
	return ss.s.update(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE token = ?`, token)
		return err
	})
}

// Find implements scs.Store.
func (ss *Sessions) Find(token string) ([]byte, bool, error) {
	return ss.FindCtx(context.Background(), token)
}

// Commit implements scs.Store.
func (ss *Sessions) Commit(token string, b []byte, expiry time.Time) error {
	return ss.CommitCtx(context.Background(), token, b, expiry)
}

// Delete implements scs.Store.
func (ss *Sessions) Delete(token string) error { return ss.DeleteCtx(context.Background(), token) }

// DeleteExpired removes sessions and mailed codes past their expiry.
func (s *Store) DeleteExpired(ctx context.Context) error {
	return s.update(ctx, func(tx *sql.Tx) error {
		now := FormatTime(s.Now())
		if _, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE expiry <= ?`, now); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM mail_codes WHERE expires_at <= ?`, now)
		return err
	})
}
