package store

import (
	"context"
	"database/sql"

	"github.com/alexedwards/scs/v2"
)

// UserSummary is a user as the server's owner sees them in a list: the
// account and how many entries it holds.
type UserSummary struct {
	User
	Captures int
}

// ListUsers returns every user with their number of captures, oldest
// account first.
func (s *Store) ListUsers(ctx context.Context) ([]UserSummary, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT `+userColumns+`,
		(SELECT count(*) FROM captures c WHERE c.user_id = users.id)
		FROM users ORDER BY created_at, id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []UserSummary
	for rows.Next() {
		var n int
		u, err := scanUser(extraScan{rows, []any{&n}})
		if err != nil {
			return nil, err
		}
		out = append(out, UserSummary{User: *u, Captures: n})
	}
	return out, rows.Err()
}

// extraScan scans a row into the destinations given and then into extra, so
// a scanner written for a table's columns reads a query that adds some.
type extraScan struct {
	row   interface{ Scan(...any) error }
	extra []any
}

func (e extraScan) Scan(dest ...any) error { return e.row.Scan(append(dest, e.extra...)...) }

// UserRemoval counts what deleting a user removed.
type UserRemoval struct {
	Captures, Patterns, Tokens, Apps, Sessions, Settings, Feedback, Batches int
}

// DeleteUser removes the user and everything of theirs: captures with all
// found in them, patterns, tokens, apps, browser sessions, settings,
// feedback, import batches and sign-in codes. It returns ENOTFOUND for an
// unknown user.
func (s *Store) DeleteUser(ctx context.Context, id string) (*UserRemoval, error) {
	var r UserRemoval
	err := s.update(ctx, func(tx *sql.Tx) error {
		if _, err := scanUser(tx.QueryRowContext(ctx, `SELECT `+userColumns+` FROM users WHERE id = ?`, id)); err != nil {
			return err
		}
		for _, c := range []struct {
			n     *int
			query string
		}{
			{&r.Captures, `SELECT count(*) FROM captures WHERE user_id = ?`},
			{&r.Patterns, `SELECT count(*) FROM patterns WHERE user_id = ?`},
			{&r.Tokens, `SELECT count(*) FROM personal_access_tokens t WHERE user_id = ?
				AND NOT EXISTS (SELECT 1 FROM apps a WHERE a.token_id = t.id)`},
			{&r.Apps, `SELECT count(*) FROM apps WHERE user_id = ?`},
			{&r.Settings, `SELECT count(*) FROM settings WHERE user_id = ?`},
			{&r.Feedback, `SELECT count(*) FROM feedback WHERE user_id = ?`},
			{&r.Batches, `SELECT count(*) FROM job_batches WHERE user_id = ?`},
		} {
			if err := tx.QueryRowContext(ctx, c.query, id).Scan(c.n); err != nil {
				return err
			}
		}
		var err error
		if r.Sessions, err = deleteUserSessions(ctx, tx, id); err != nil {
			return err
		}
		// Every other table reaches the user through ON DELETE CASCADE.
		_, err = tx.ExecContext(ctx, `DELETE FROM users WHERE id = ?`, id)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &r, nil
}

// DeleteUserSessions signs the user out of every browser, including one
// waiting for its second factor, and returns how many sessions it ended.
func (s *Store) DeleteUserSessions(ctx context.Context, userID string) (int, error) {
	var n int
	err := s.update(ctx, func(tx *sql.Tx) error {
		var err error
		n, err = deleteUserSessions(ctx, tx, userID)
		return err
	})
	return n, err
}

// sessionUserKeys are the session values that name a user: the server keeps
// a signed-in user under user_id, and one who still owes the second factor
// under pending_user_id.
var sessionUserKeys = []string{"user_id", "pending_user_id"}

// deleteUserSessions deletes the user's sessions inside tx. Sessions are
// scs's encoded values without a user column, so each is decoded to find
// whose it is.
func deleteUserSessions(ctx context.Context, tx *sql.Tx, userID string) (int, error) {
	rows, err := tx.QueryContext(ctx, `SELECT token, data FROM sessions`)
	if err != nil {
		return 0, err
	}
	var tokens []string
	for rows.Next() {
		var token string
		var data []byte
		if err := rows.Scan(&token, &data); err != nil {
			rows.Close()
			return 0, err
		}
		_, values, err := scs.GobCodec{}.Decode(data)
		if err != nil {
			continue // not a session this server can read, so nobody's
		}
		for _, k := range sessionUserKeys {
			if v, ok := values[k].(string); ok && v == userID {
				tokens = append(tokens, token)
				break
			}
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	for _, token := range tokens {
		if _, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE token = ?`, token); err != nil {
			return 0, err
		}
	}
	return len(tokens), nil
}
