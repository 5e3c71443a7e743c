package store

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"database/sql"
	"encoding/hex"
	"errors"
	"strings"
	"time"
	"unicode/utf8"
)

// Token is a personal access token. Its plaintext, "<id>|<secret>", is shown
// once when it is made; only a SHA-256 of the secret is kept.
type Token struct {
	ID     string
	UserID string
	Name   string
	Scopes []string // "*" grants every scope
	// App is set by Authenticate when the token belongs to a registered app:
	// an app holds what it was given and never opens a browser session.
	App        bool
	ExpiresAt  *time.Time
	LastUsedAt *time.Time
	RevokedAt  *time.Time
	CreatedAt  time.Time
}

// Can reports whether the token grants scope.
func (t *Token) Can(scope string) bool {
	for _, s := range t.Scopes {
		if s == "*" || s == scope {
			return true
		}
	}
	return false
}

// Validate checks the token's name and scopes.
func (t *Token) Validate() error {
	t.Name = strings.TrimSpace(t.Name)
	if t.Name == "" {
		return Invalid("name", "The name field is required.")
	}
	if utf8.RuneCountInString(t.Name) > 255 {
		return Invalid("name", "The name may not be longer than 255 characters.")
	}
	if len(t.Scopes) == 0 {
		return Invalid("scopes", "At least one scope is required.")
	}
	return nil
}

// lastUsedGranularity bounds how often using a token writes to the database:
// a busy client would otherwise turn every read into a write.
const lastUsedGranularity = time.Minute

func hashSecret(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// CreateToken stores t for its user and returns the plaintext token, which
// is never available again. It returns EINVALID or ENOTFOUND for an unknown user.
func (s *Store) CreateToken(ctx context.Context, t *Token) (string, error) {
	if err := t.Validate(); err != nil {
		return "", err
	}
	var plaintext string
	err := s.update(ctx, func(tx *sql.Tx) error {
		var err error
		plaintext, err = insertToken(ctx, tx, t, s.Now())
		return err
	})
	return plaintext, err
}

// insertToken stores a validated token inside tx and returns its plaintext.
func insertToken(ctx context.Context, tx *sql.Tx, t *Token, now time.Time) (string, error) {
	secret := rand.Text() + rand.Text() // 52 base32 characters, 260 bits
	t.ID, t.CreatedAt = newID(), now
	_, err := tx.ExecContext(ctx, `INSERT INTO personal_access_tokens (id, user_id, name, secret_hash, scopes, expires_at, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)`,
		t.ID, t.UserID, t.Name, hashSecret(secret), strings.Join(t.Scopes, " "), nullTime(t.ExpiresAt), FormatTime(t.CreatedAt))
	if err != nil {
		return "", err
	}
	return t.ID + "|" + secret, nil
}

// Authenticate resolves a plaintext bearer token to its token and user. A
// malformed, unknown, expired or revoked token gives EUNAUTHORIZED.
func (s *Store) Authenticate(ctx context.Context, plaintext string) (*Token, *User, error) {
	unauthorized := Errorf(EUNAUTHORIZED, "Unauthenticated.")
	id, secret, ok := strings.Cut(plaintext, "|")
	if !ok || id == "" || secret == "" {
		return nil, nil, unauthorized
	}
	var (
		t            Token
		hash, scopes string
		revoked      sql.NullString
	)
	// One query reads the token, whether it is an app's, and its user.
	u, err := scanUser(s.reads.QueryRowContext(ctx, `SELECT `+userColumnsOf("u")+`,
			t.id, t.name, t.secret_hash, t.scopes, t.expires_at, t.last_used_at, t.revoked_at, t.created_at,
			EXISTS (SELECT 1 FROM apps WHERE apps.token_id = t.id)
		FROM personal_access_tokens t JOIN users u ON u.id = t.user_id WHERE t.id = ?`, id),
		&t.ID, &t.Name, &hash, &scopes, dbNullTime{&t.ExpiresAt}, dbNullTime{&t.LastUsedAt}, &revoked, dbTime{&t.CreatedAt}, &t.App)
	if ErrorCode(err) == ENOTFOUND {
		return nil, nil, unauthorized
	} else if err != nil {
		return nil, nil, err
	}
	t.UserID = u.ID
	if subtle.ConstantTimeCompare([]byte(hashSecret(secret)), []byte(hash)) != 1 || revoked.Valid {
		return nil, nil, unauthorized
	}
	now := s.Now()
	if t.ExpiresAt != nil && !now.Before(*t.ExpiresAt) {
		return nil, nil, unauthorized
	}
	t.Scopes = strings.Fields(scopes)

	if t.LastUsedAt == nil || now.Sub(*t.LastUsedAt) >= lastUsedGranularity {
		t.LastUsedAt = &now
		if err := s.update(ctx, func(tx *sql.Tx) error {
			_, err := tx.ExecContext(ctx, `UPDATE personal_access_tokens SET last_used_at = ? WHERE id = ?`, FormatTime(now), t.ID)
			return err
		}); err != nil && ErrorCode(err) != EFULL {
			// On a full disk the token still works for reading: the
			// last use is bookkeeping, noted again once there is room.
			return nil, nil, err
		}
	}
	return &t, u, nil
}

// RevokeToken revokes the user's token id. It returns ENOTFOUND when the
// user has no such live token.
func (s *Store) RevokeToken(ctx context.Context, userID, id string) error {
	return s.update(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE personal_access_tokens SET revoked_at = ?
			WHERE id = ? AND user_id = ? AND revoked_at IS NULL`, FormatTime(s.Now()), id, userID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return NotFound("Token")
		}
		return nil
	})
}

// tokenColumns are a token's columns without its secret, and whether it is
// an app's; scanToken reads them.
const tokenColumns = `id, user_id, name, scopes, expires_at, last_used_at, created_at,
	EXISTS (SELECT 1 FROM apps WHERE apps.token_id = personal_access_tokens.id)`

func scanToken(row interface{ Scan(...any) error }) (*Token, error) {
	var t Token
	var scopes string
	err := row.Scan(&t.ID, &t.UserID, &t.Name, &scopes, dbNullTime{&t.ExpiresAt}, dbNullTime{&t.LastUsedAt}, dbTime{&t.CreatedAt}, &t.App)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, NotFound("Token")
	} else if err != nil {
		return nil, err
	}
	t.Scopes = strings.Fields(scopes)
	return &t, nil
}

// ListTokens returns the user's tokens that are not revoked, expired ones
// included, newest first, with App set for an app's token. Secrets are never
// stored, so none is returned.
func (s *Store) ListTokens(ctx context.Context, userID string) ([]Token, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT `+tokenColumns+` FROM personal_access_tokens
		WHERE user_id = ? AND revoked_at IS NULL ORDER BY created_at DESC, id DESC`, userID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Token
	for rows.Next() {
		t, err := scanToken(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, *t)
	}
	return out, rows.Err()
}

// RevokeTokenByID revokes the token id, whoever holds it, and returns it.
// It returns ENOTFOUND when no live token has that id.
func (s *Store) RevokeTokenByID(ctx context.Context, id string) (*Token, error) {
	var t *Token
	err := s.update(ctx, func(tx *sql.Tx) error {
		var err error
		if t, err = scanToken(tx.QueryRowContext(ctx, `SELECT `+tokenColumns+` FROM personal_access_tokens
			WHERE id = ? AND revoked_at IS NULL`, id)); err != nil {
			return err
		}
		now := s.Now()
		t.RevokedAt = &now
		_, err = tx.ExecContext(ctx, `UPDATE personal_access_tokens SET revoked_at = ? WHERE id = ?`, FormatTime(now), id)
		return err
	})
	if err != nil {
		return nil, err
	}
	return t, nil
}
