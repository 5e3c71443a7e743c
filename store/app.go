package store

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// AppNameMaxLength is the longest app name accepted, in characters.
const AppNameMaxLength = 255

// App is a program the user let in with a token of its own, such as a phone
// shortcut that posts entries. Its scopes and last use are its token's.
type App struct {
	ID         string
	UserID     string
	Name       string
	TokenID    string
	Scopes     []string // "*" grants every scope
	LastUsedAt *time.Time
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

// AppUpdate changes an app; nil fields stay as they are.
type AppUpdate struct {
	Name   *string
	Scopes *[]string
}

// Validate trims the name and checks it is 1 to AppNameMaxLength characters,
// and that there is at least one scope, dropping repeats. It returns
// EINVALID naming "name" or "scopes". Whether each scope exists is the
// caller's to check: the store does not know them.
func (a *App) Validate() error {
	var err error
	if a.Name, err = validAppName(a.Name); err != nil {
		return err
	}
	a.Scopes, err = validAppScopes(a.Scopes)
	return err
}

func validAppName(name string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return "", Invalid("name", "The name field is required.")
	}
	if utf8.RuneCountInString(name) > AppNameMaxLength {
		return "", Invalid("name", "The name may not be longer than %d characters.", AppNameMaxLength)
	}
	return name, nil
}

func validAppScopes(scopes []string) ([]string, error) {
	var out []string
	for _, s := range scopes {
		if s = strings.TrimSpace(s); s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
		if OwnerScope(s) {
			return nil, Invalid("scopes", OwnerScopeRefusal)
		}
	}
	if len(out) == 0 {
		return nil, Invalid("scopes", "Give at least one scope.")
	}
	return out, nil
}

// CreateApp stores a for its user with a new token carrying its scopes and
// named after it, and returns the token's plaintext, which is never
// available again. It returns EINVALID, or ENOTFOUND for an unknown user.
func (s *Store) CreateApp(ctx context.Context, a *App) (string, error) {
	if err := a.Validate(); err != nil {
		return "", err
	}
	t := Token{UserID: a.UserID, Name: a.Name, Scopes: a.Scopes}
	if err := t.Validate(); err != nil {
		return "", err
	}
	var plaintext string
	err := s.update(ctx, func(tx *sql.Tx) error {
		var err error
		if plaintext, err = insertToken(ctx, tx, &t, s.Now()); err != nil {
			return err
		}
		a.ID, a.TokenID, a.CreatedAt, a.UpdatedAt, a.LastUsedAt = newID(), t.ID, t.CreatedAt, t.CreatedAt, nil
		_, err = tx.ExecContext(ctx, `INSERT INTO apps (id, user_id, name, token_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)`,
			a.ID, a.UserID, a.Name, a.TokenID, FormatTime(a.CreatedAt), FormatTime(a.UpdatedAt))
		return err
	})
	if err != nil {
		return "", err
	}
	return plaintext, nil
}

const appColumns = `a.id, a.user_id, a.name, a.token_id, t.scopes, t.last_used_at, a.created_at, a.updated_at`
const appFrom = ` FROM apps a JOIN personal_access_tokens t ON t.id = a.token_id`

func scanApp(row interface{ Scan(...any) error }) (*App, error) {
	var a App
	var scopes string
	err := row.Scan(&a.ID, &a.UserID, &a.Name, &a.TokenID, &scopes, dbNullTime{&a.LastUsedAt}, dbTime{&a.CreatedAt}, dbTime{&a.UpdatedAt})
	if errors.Is(err, sql.ErrNoRows) {
		return nil, NotFound("App")
	} else if err != nil {
		return nil, err
	}
	a.Scopes = strings.Fields(scopes)
	return &a, nil
}

// ListApps returns a page of the user's apps, newest first, and how many
// there are in all.
func (s *Store) ListApps(ctx context.Context, userID string, p Page) ([]App, int, error) {
	var list []App
	var total int
	err := s.view(ctx, func(tx *sql.Tx) (err error) {
		list, total, err = listPage(ctx, tx, listQuery{columns: appColumns, from: appFrom + ` WHERE a.user_id = ?`,
			args: []any{userID}, order: `a.created_at DESC, a.id DESC`}, p, scanApp)
		return err
	})
	return list, total, err
}

// FindApp returns the user's app. Another user's app is ENOTFOUND, like one
// that does not exist.
func (s *Store) FindApp(ctx context.Context, userID, id string) (*App, error) {
	var a *App
	err := s.view(ctx, func(tx *sql.Tx) error {
		var err error
		a, err = findApp(ctx, tx, userID, id)
		return err
	})
	return a, err
}

func findApp(ctx context.Context, tx *sql.Tx, userID, id string) (*App, error) {
	return scanApp(tx.QueryRowContext(ctx, `SELECT `+appColumns+appFrom+` WHERE a.id = ? AND a.user_id = ?`, id, userID))
}

// UpdateApp renames the user's app and/or replaces its scopes, on its token
// too, so the token the app holds keeps working with the new scopes. It
// returns the app as it now is, EINVALID, or ENOTFOUND when the user has no
// such app.
func (s *Store) UpdateApp(ctx context.Context, userID, id string, upd AppUpdate) (*App, error) {
	var err error
	var name string
	var scopes []string
	if upd.Name != nil {
		if name, err = validAppName(*upd.Name); err != nil {
			return nil, err
		}
	}
	if upd.Scopes != nil {
		if scopes, err = validAppScopes(*upd.Scopes); err != nil {
			return nil, err
		}
	}
	var a *App
	err = s.update(ctx, func(tx *sql.Tx) error {
		var err error
		if a, err = findApp(ctx, tx, userID, id); err != nil {
			return err
		}
		if upd.Name == nil && upd.Scopes == nil {
			return nil
		}
		if upd.Name != nil {
			a.Name = name
		}
		if upd.Scopes != nil {
			a.Scopes = scopes
		}
		a.UpdatedAt = s.Now()
		if _, err := tx.ExecContext(ctx, `UPDATE apps SET name = ?, updated_at = ? WHERE id = ?`,
			a.Name, FormatTime(a.UpdatedAt), a.ID); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE personal_access_tokens SET name = ?, scopes = ? WHERE id = ?`,
			a.Name, strings.Join(a.Scopes, " "), a.TokenID)
		return err
	})
	if err != nil {
		return nil, err
	}
	return a, nil
}

// DeleteApp revokes the user's app's token, so it is refused from then on,
// and removes the app. It returns ENOTFOUND when the user has no such app.
func (s *Store) DeleteApp(ctx context.Context, userID, id string) error {
	return s.update(ctx, func(tx *sql.Tx) error {
		var tokenID string
		err := tx.QueryRowContext(ctx, `SELECT token_id FROM apps WHERE id = ? AND user_id = ?`, id, userID).Scan(&tokenID)
		if errors.Is(err, sql.ErrNoRows) {
			return NotFound("App")
		} else if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE personal_access_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL`,
			FormatTime(s.Now()), tokenID); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM apps WHERE id = ?`, id)
		return err
	})
}
