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
	err := ss.s.reads.QueryRowContext(ctx, `SELECT data FROM sessions WHERE token = ? AND expiry > ?`, token, FormatTime(ss.s.Now())).Scan(&b)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	return b, err == nil, err
}

// CommitCtx implements scs.CtxStore. It also copies who the session is
// for, and its last use, out of the session's values into columns of their
// own (see sessionColumns), so that a user's sessions can be listed.
func (ss *Sessions) CommitCtx(ctx context.Context, token string, b []byte, expiry time.Time) error {
	// The columns are what the list of signed-in browsers shows; data that
	// scs wrote but this version cannot read still saves, with no owner.
	cols, _ := sessionColumns(b)
	return ss.s.update(ctx, func(tx *sql.Tx) error {
		now := ss.s.Now()
		seen := now
		if cols.seen != nil {
			seen = *cols.seen
		}
		// A user deleted meanwhile leaves the session with no one: the
		// sub-select gives NULL rather than breaking the foreign key.
		_, err := tx.ExecContext(ctx, `INSERT INTO sessions (token, data, expiry, id, user_id, created_at, last_seen_at, user_agent, ip)
			VALUES (?, ?, ?, ?, (SELECT id FROM users WHERE id = ?), ?, ?, ?, ?)
			ON CONFLICT (token) DO UPDATE SET data = excluded.data, expiry = excluded.expiry,
				id = coalesce(sessions.id, excluded.id), user_id = excluded.user_id,
				created_at = coalesce(sessions.created_at, excluded.created_at),
				last_seen_at = excluded.last_seen_at, user_agent = excluded.user_agent, ip = excluded.ip`,
			token, b, FormatTime(expiry), newID(), cols.userID, FormatTime(now), FormatTime(seen), cols.userAgent, cols.ip)
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
