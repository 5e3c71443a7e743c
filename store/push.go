package store

import (
	"context"
	"database/sql"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// PushTokenMaxLength is the longest push token accepted, in characters.
const PushTokenMaxLength = 4096

// PushPlatforms are the platforms a push token may name; it may also name none.
var PushPlatforms = []string{"android", "ios", "web"}

// PushToken is the push-service token of one app install on a device. It is
// only stored: nothing is sent to a push service from here.
type PushToken struct {
	Token     string
	UserID    string
	Platform  string // one of PushPlatforms, or "" when not given
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Validate checks the token is 1 to PushTokenMaxLength characters and the
// platform is known. It returns EINVALID naming "token" or "platform".
func (p *PushToken) Validate() error {
	if strings.TrimSpace(p.Token) == "" {
		return Invalid("token", "The token field is required.")
	}
	if !utf8.ValidString(p.Token) {
		return Invalid("token", "The token must be valid UTF-8.")
	}
	if utf8.RuneCountInString(p.Token) > PushTokenMaxLength {
		return Invalid("token", "The token may not be longer than %d characters.", PushTokenMaxLength)
	}
	if p.Platform != "" && !slices.Contains(PushPlatforms, p.Platform) {
		return Invalid("platform", "The platform must be one of: %s.", strings.Join(PushPlatforms, ", "))
	}
	return nil
}

// SavePushToken stores p for its user. Saving a stored token again updates
// it (an empty platform keeps the one stored); a token stored for another
// user moves to this one, since an app install is signed into one account at
// a time. It returns EINVALID, or ENOTFOUND for an unknown user.
func (s *Store) SavePushToken(ctx context.Context, p *PushToken) error {
	if err := p.Validate(); err != nil {
		return err
	}
	now := s.Now()
	return s.update(ctx, func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, `INSERT INTO push_tokens (token, user_id, platform, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (token) DO UPDATE SET
				platform = CASE WHEN excluded.platform = '' THEN push_tokens.platform ELSE excluded.platform END,
				created_at = CASE WHEN push_tokens.user_id = excluded.user_id THEN push_tokens.created_at ELSE excluded.created_at END,
				user_id = excluded.user_id,
				updated_at = excluded.updated_at
			RETURNING platform, created_at`,
			p.Token, p.UserID, p.Platform, FormatTime(now), FormatTime(now)).Scan(&p.Platform, dbTime{&p.CreatedAt})
		p.UpdatedAt = now
		return err
	})
}

// DeletePushToken removes the user's push token. It returns ENOTFOUND when
// the user has no such token, even when another user has.
func (s *Store) DeletePushToken(ctx context.Context, userID, token string) error {
	return s.update(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM push_tokens WHERE token = ? AND user_id = ?`, token, userID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return NotFound("Push token")
		}
		return nil
	})
}

// PushTokens returns the user's push tokens, most recently saved first.
func (s *Store) PushTokens(ctx context.Context, userID string) ([]PushToken, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT token, user_id, platform, created_at, updated_at FROM push_tokens
		WHERE user_id = ? ORDER BY updated_at DESC, token`, userID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []PushToken
	for rows.Next() {
		var p PushToken
		if err := rows.Scan(&p.Token, &p.UserID, &p.Platform, dbTime{&p.CreatedAt}, dbTime{&p.UpdatedAt}); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}
