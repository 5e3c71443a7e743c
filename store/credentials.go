package store

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"github.com/alexedwards/scs/v2"
)

// The values of a browser session that the session store copies into
// columns of their own when it saves the session, so that a user's sessions
// can be listed and signed out one by one. Whoever signs a session in puts
// them there.
const (
	SessionUserKey      = "user_id"    // the signed-in user's id
	SessionUserAgentKey = "user_agent" // the browser's User-Agent at its last use
	SessionIPKey        = "ip"         // the client's address at its last use
	SessionSeenKey      = "seen_at"    // unix seconds of its last use
)

// SessionUserAgentMaxLength is the longest user agent kept with a session,
// in characters: a client may send anything.
const SessionUserAgentMaxLength = 255

// sessionFields are the columns CommitCtx copies out of a session.
type sessionFields struct {
	userID, userAgent, ip any // string or nil
	seen                  *time.Time
}

// sessionColumns decodes an scs session (scs's default gob encoding) and
// takes out the values the sessions table keeps in columns.
func sessionColumns(b []byte) (sessionFields, error) {
	f := sessionFields{userAgent: "", ip: ""} // the columns are NOT NULL
	_, values, err := scs.GobCodec{}.Decode(b)
	if err != nil {
		return f, err
	}
	if v, ok := values[SessionUserKey].(string); ok && v != "" {
		f.userID = v
	}
	ua, _ := values[SessionUserAgentKey].(string)
	if r := []rune(ua); len(r) > SessionUserAgentMaxLength {
		ua = string(r[:SessionUserAgentMaxLength])
	}
	ip, _ := values[SessionIPKey].(string)
	f.userAgent, f.ip = ua, ip
	if v, ok := values[SessionSeenKey].(int64); ok && v > 0 {
		t := time.Unix(v, 0).UTC()
		f.seen = &t
	}
	return f, nil
}

// Session is a signed-in browser session as its user sees it. Its id is
// not the cookie's token, which never leaves the sessions table.
type Session struct {
	ID         string
	Token      string // the cookie's token, to tell the caller's own apart; never shown
	UserAgent  string
	IP         string
	CreatedAt  time.Time
	LastSeenAt time.Time
	ExpiresAt  time.Time
}

const sessionListColumns = `id, token, user_agent, ip, created_at, last_seen_at, expiry`

func scanSession(row interface{ Scan(...any) error }) (*Session, error) {
	var s Session
	if err := row.Scan(&s.ID, &s.Token, &s.UserAgent, &s.IP, dbTime{&s.CreatedAt}, dbTime{&s.LastSeenAt}, dbTime{&s.ExpiresAt}); err != nil {
		return nil, err
	}
	return &s, nil
}

// ListSessions returns a page of the user's live browser sessions, the
// most recently used first, and how many there are in all.
func (s *Store) ListSessions(ctx context.Context, userID string, p Page) ([]Session, int, error) {
	var list []Session
	var total int
	err := s.view(ctx, func(tx *sql.Tx) (err error) {
		list, total, err = listPage(ctx, tx, listQuery{columns: sessionListColumns,
			from: `FROM sessions WHERE user_id = ? AND expiry > ?`, args: []any{userID, FormatTime(s.Now())},
			order: `last_seen_at DESC, id DESC`}, p, scanSession)
		return err
	})
	return list, total, err
}

// EndSession signs the user's session id out: the browser that holds it is
// signed out at its next request. It returns ENOTFOUND when the user has no
// such live session.
func (s *Store) EndSession(ctx context.Context, userID, id string) error {
	return s.update(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE id = ? AND user_id = ? AND expiry > ?`, id, userID, FormatTime(s.Now()))
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return NotFound("Session")
		}
		return nil
	})
}

// EndOtherSessions signs out every session of the user but the one whose
// cookie token is keep ("" keeps none), and returns how many it ended.
func (s *Store) EndOtherSessions(ctx context.Context, userID, keep string) (int, error) {
	var n int64
	err := s.update(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE user_id = ? AND token <> ?`, userID, keep)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return int(n), err
}

// ChangePassword sets the user's password hash and ends what the old
// password may have opened: every session of the user but the one whose
// cookie token is keep ("" keeps none), and every token not held by an app
// (tokens from signing in, and from recur token create). Apps keep theirs:
// each was given for a purpose, and is revoked on its own. It returns how
// many sessions and tokens it ended, or ENOTFOUND for an unknown user.
func (s *Store) ChangePassword(ctx context.Context, userID, hash, keep string) (sessions, tokens int, err error) {
	err = s.update(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE users SET password_hash = ?, updated_at = ? WHERE id = ?`, hash, FormatTime(s.Now()), userID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return NotFound("User")
		}
		if res, err = tx.ExecContext(ctx, `DELETE FROM sessions WHERE user_id = ? AND token <> ?`, userID, keep); err != nil {
			return err
		}
		n, _ := res.RowsAffected()
		sessions = int(n)
		res, err = tx.ExecContext(ctx, `UPDATE personal_access_tokens SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL
			AND NOT EXISTS (SELECT 1 FROM apps WHERE apps.token_id = personal_access_tokens.id)`, FormatTime(s.Now()), userID)
		if err != nil {
			return err
		}
		n, _ = res.RowsAffected()
		tokens = int(n)
		return nil
	})
	return sessions, tokens, err
}

// ListedToken is a live token of the user, with the app it belongs to if any.
type ListedToken struct {
	Token
	AppID string // "" for a personal access token
}

const listedTokenColumns = `t.id, t.user_id, t.name, t.scopes, t.expires_at, t.last_used_at, t.created_at, coalesce(a.id, '')`

func scanListedToken(row interface{ Scan(...any) error }) (*ListedToken, error) {
	var t ListedToken
	var scopes string
	if err := row.Scan(&t.ID, &t.UserID, &t.Name, &scopes, dbNullTime{&t.ExpiresAt}, dbNullTime{&t.LastUsedAt}, dbTime{&t.CreatedAt},
		&t.AppID); err != nil {
		return nil, err
	}
	t.Scopes = strings.Fields(scopes)
	t.App = t.AppID != ""
	return &t, nil
}

// ListLiveTokens returns a page of the user's tokens that still work (not
// revoked, not expired), apps' tokens included, newest first, and how many
// there are in all. Secrets are not kept, so none is returned.
func (s *Store) ListLiveTokens(ctx context.Context, userID string, p Page) ([]ListedToken, int, error) {
	var list []ListedToken
	var total int
	err := s.view(ctx, func(tx *sql.Tx) (err error) {
		list, total, err = listPage(ctx, tx, listQuery{columns: listedTokenColumns,
			from: `FROM personal_access_tokens t LEFT JOIN apps a ON a.token_id = t.id
				WHERE t.user_id = ? AND t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > ?)`,
			args: []any{userID, FormatTime(s.Now())}, order: `t.created_at DESC, t.id DESC`}, p, scanListedToken)
		return err
	})
	return list, total, err
}

// RevokeLiveToken revokes the user's live token id at once; an app's token
// takes its app with it, as DeleteApp does. It returns ENOTFOUND when the
// user has no such live token.
func (s *Store) RevokeLiveToken(ctx context.Context, userID, id string) error {
	return s.update(ctx, func(tx *sql.Tx) error {
		now := FormatTime(s.Now())
		res, err := tx.ExecContext(ctx, `UPDATE personal_access_tokens SET revoked_at = ?
			WHERE id = ? AND user_id = ? AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?)`, now, id, userID, now)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return NotFound("Token")
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM apps WHERE token_id = ?`, id)
		return err
	})
}
