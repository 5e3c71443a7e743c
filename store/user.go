package store

import (
	"context"
	"database/sql"
	"errors"
	"net/mail"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// User is a person with an account.
type User struct {
	ID              string
	Email           string
	Name            string
	PasswordHash    string // empty: the account signs in by mail only
	EmailVerifiedAt *time.Time
	// TwoFactorSecret is the TOTP secret, sealed with the instance's key;
	// two-factor is on once TwoFactorConfirmedAt is set.
	TwoFactorSecret      string
	TwoFactorConfirmedAt *time.Time
	CreatedAt            time.Time
	UpdatedAt            time.Time
}

// TwoFactor reports whether the user has two-factor authentication on.
func (u *User) TwoFactor() bool { return u.TwoFactorConfirmedAt != nil }

// NormaliseEmail is the one form of an address that Recur stores, looks up
// and keys its limits on: without surrounding space, lower-cased, and in
// Unicode NFC, so that "José@Example.com " typed with a combining accent is
// the same address as "josé@example.com".
func NormaliseEmail(email string) string {
	return norm.NFC.String(strings.ToLower(strings.TrimSpace(email)))
}

// Validate checks the fields a person gives and normalises the address
// (NormaliseEmail). It returns EINVALID naming the field.
func (u *User) Validate() error {
	u.Email = NormaliseEmail(u.Email)
	u.Name = strings.TrimSpace(u.Name)
	if u.Email == "" {
		return Invalid("email", "The email field is required.")
	}
	addr, err := mail.ParseAddress(u.Email)
	if err != nil || addr.Address != u.Email || addr.Name != "" {
		return Invalid("email", "The email must be a valid email address, like name@example.com.")
	}
	if len(u.Name) > 255 {
		return Invalid("name", "The name may not be longer than 255 characters.")
	}
	return nil
}

// CreateUser validates u, gives it an id and stores it. It returns EINVALID or
// ECONFLICT when the address is taken.
func (s *Store) CreateUser(ctx context.Context, u *User) error {
	if err := u.Validate(); err != nil {
		return err
	}
	now := s.Now()
	u.ID, u.CreatedAt, u.UpdatedAt = newID(), now, now
	err := s.update(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO users (id, email, name, password_hash, email_verified_at, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?)`,
			u.ID, u.Email, u.Name, sql.NullString{String: u.PasswordHash, Valid: u.PasswordHash != ""},
			nullTime(u.EmailVerifiedAt), FormatTime(now), FormatTime(now))
		return err
	})
	var e *Error
	if errors.As(err, &e) && e.Code == ECONFLICT {
		return &Error{Code: ECONFLICT, Field: "email", Message: "A user with that email already exists."}
	}
	return err
}

const userColumns = `id, email, name, password_hash, email_verified_at, two_factor_secret, two_factor_confirmed_at, created_at, updated_at`

// userColumnsOf is userColumns qualified by a table's alias, for a join.
func userColumnsOf(alias string) string {
	return alias + "." + strings.ReplaceAll(userColumns, ", ", ", "+alias+".")
}

// scanUser reads userColumns, then the row's further columns into more.
func scanUser(row interface{ Scan(...any) error }, more ...any) (*User, error) {
	var (
		u    User
		hash sql.NullString
	)
	if err := row.Scan(append([]any{&u.ID, &u.Email, &u.Name, &hash, dbNullTime{&u.EmailVerifiedAt}, &u.TwoFactorSecret, dbNullTime{&u.TwoFactorConfirmedAt},
		dbTime{&u.CreatedAt}, dbTime{&u.UpdatedAt}}, more...)...); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, NotFound("User")
		}
		return nil, err
	}
	u.PasswordHash = hash.String
	return &u, nil
}

// FindUserByID returns the user with id, or ENOTFOUND.
func (s *Store) FindUserByID(ctx context.Context, id string) (*User, error) {
	return scanUser(s.reads.QueryRowContext(ctx, `SELECT `+userColumns+` FROM users WHERE id = ?`, id))
}

// FindUserByEmail returns the user with the address, compared in its
// normal form (NormaliseEmail), or ENOTFOUND.
func (s *Store) FindUserByEmail(ctx context.Context, email string) (*User, error) {
	return scanUser(s.read.QueryRowContext(ctx, `SELECT `+userColumns+` FROM users WHERE email = ?`, NormaliseEmail(email)))
}

// PasswordMatches reports whether password matches the user's stored hash.
// An account without a password matches nothing.
func (u *User) PasswordMatches(password string) bool {
	ok, _ := VerifyPassword(u.PasswordHash, password)
	return ok
}

// SetUserName changes the name the user goes by (trimmed, at most 255
// characters). It returns EINVALID under name, or ENOTFOUND.
func (s *Store) SetUserName(ctx context.Context, userID, name string) error {
	name = strings.TrimSpace(name)
	if utf8.RuneCountInString(name) > 255 {
		return Invalid("name", "The name may not be longer than 255 characters.")
	}
	return s.update(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE users SET name = ?, updated_at = ? WHERE id = ?`, name, FormatTime(s.Now()), userID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return NotFound("User")
		}
		return nil
	})
}

// SetPasswordHash replaces the user's password hash, such as with one made
// with the current parameters. It returns ENOTFOUND for an unknown user.
func (s *Store) SetPasswordHash(ctx context.Context, userID, hash string) error {
	return s.update(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE users SET password_hash = ? WHERE id = ?`, hash, userID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return NotFound("User")
		}
		return nil
	})
}

// NightlyState is when a user's nightly run last happened, and their zone.
type NightlyState struct {
	UserID   string
	Timezone string
	// NightlyOn is when the last nightly run happened: a UTC time, "" for
	// never, or the local date of the run as earlier versions recorded it.
	NightlyOn string
}

// NightlyStates lists every user's nightly state.
func (s *Store) NightlyStates(ctx context.Context) ([]NightlyState, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT u.id, coalesce(st.value, ?), u.nightly_on FROM users u
		LEFT JOIN settings st ON st.user_id = u.id AND st.key = ? ORDER BY u.id`, settingDefaults[SettingTimezone], SettingTimezone)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []NightlyState
	for rows.Next() {
		var n NightlyState
		if err := rows.Scan(&n.UserID, &n.Timezone, &n.NightlyOn); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

// SetNightlyOn records the time of a user's nightly run.
func (s *Store) SetNightlyOn(ctx context.Context, userID string, at time.Time) error {
	return s.update(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE users SET nightly_on = ? WHERE id = ?`, FormatTime(at), userID)
		return err
	})
}
