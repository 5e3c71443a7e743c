package store

import (
	"context"
	"crypto/subtle"
	"database/sql"
	"errors"
	"time"
)

// Mail code purposes.
const (
	CodeSignIn  = "sign_in"
	CodeConfirm = "confirm"
)

// MailCodeAttempts is how many wrong tries a mailed code survives.
const MailCodeAttempts = 5

// ErrCodeRejected is the one error for a mailed code that does not work,
// whatever the reason, so that nothing about the account leaks.
var ErrCodeRejected = Invalid("code", "The code is invalid or has expired.")

// CreateMailCode stores the hash of a new code for the user, valid for ttl,
// in place of the user's earlier codes of the same purpose. A user has at
// most one code of a purpose, so checking one costs the same for every
// address, however many codes were asked for.
func (s *Store) CreateMailCode(ctx context.Context, userID, purpose, codeHash string, ttl time.Duration) error {
	return s.update(ctx, func(tx *sql.Tx) error {
		now := s.Now()
		if _, err := tx.ExecContext(ctx, `DELETE FROM mail_codes WHERE user_id = ? AND purpose = ?`, userID, purpose); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO mail_codes (id, user_id, purpose, code_hash, expires_at, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
			newID(), userID, purpose, codeHash, FormatTime(now.Add(ttl)), FormatTime(now))
		return err
	})
}

// CheckMailCode checks a code against the user's live code of the purpose.
// A match is used up when consume is set; a miss counts against the code's
// attempts. Any failure is ErrCodeRejected. Every call does the same work
// (one write transaction, one look-up, one update), whether or not the user
// or a live code exists, so that timing tells nothing about either.
func (s *Store) CheckMailCode(ctx context.Context, userID, purpose, codeHash string, consume bool) error {
	var ok bool
	err := s.update(ctx, func(tx *sql.Tx) error {
		var id, hash string
		var attempts int
		err := tx.QueryRowContext(ctx, `SELECT id, code_hash, attempts FROM mail_codes
			WHERE user_id = ? AND purpose = ? AND used_at IS NULL AND expires_at > ? ORDER BY created_at DESC LIMIT 1`,
			userID, purpose, FormatTime(s.Now())).Scan(&id, &hash, &attempts)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		// With no live code, id is "" and the update below changes nothing.
		ok = id != "" && attempts < MailCodeAttempts && subtle.ConstantTimeCompare([]byte(hash), []byte(codeHash)) == 1
		switch {
		case ok && consume:
			_, err = tx.ExecContext(ctx, `UPDATE mail_codes SET used_at = ? WHERE id = ?`, FormatTime(s.Now()), id)
		case ok:
			_, err = tx.ExecContext(ctx, `UPDATE mail_codes SET attempts = attempts WHERE id = ?`, id)
		default:
			_, err = tx.ExecContext(ctx, `UPDATE mail_codes SET attempts = attempts + 1 WHERE id = ? AND attempts < ?`, id, MailCodeAttempts)
		}
		return err
	})
	if err != nil {
		return err
	}
	if !ok {
		return ErrCodeRejected
	}
	return nil
}

// MarkEmailVerified records that the user proved their address, once.
func (s *Store) MarkEmailVerified(ctx context.Context, userID string) error {
	return s.update(ctx, func(tx *sql.Tx) error {
		now := FormatTime(s.Now())
		_, err := tx.ExecContext(ctx, `UPDATE users SET email_verified_at = coalesce(email_verified_at, ?), updated_at = ? WHERE id = ?`, now, now, userID)
		return err
	})
}

// SetTwoFactorSecret stores a new sealed TOTP secret for the user and turns
// two-factor off until ConfirmTwoFactor.
func (s *Store) SetTwoFactorSecret(ctx context.Context, userID, sealed string) error {
	return s.update(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE users SET two_factor_secret = ?, two_factor_confirmed_at = NULL, updated_at = ? WHERE id = ?`,
			sealed, FormatTime(s.Now()), userID)
		return err
	})
}

// ConfirmTwoFactor turns two-factor on and replaces the recovery codes.
func (s *Store) ConfirmTwoFactor(ctx context.Context, userID string, recoveryHashes []string) error {
	return s.update(ctx, func(tx *sql.Tx) error {
		now := FormatTime(s.Now())
		if _, err := tx.ExecContext(ctx, `UPDATE users SET two_factor_confirmed_at = ?, updated_at = ? WHERE id = ?`, now, now, userID); err != nil {
			return err
		}
		return replaceRecoveryCodes(ctx, tx, userID, recoveryHashes)
	})
}

// ReplaceRecoveryCodes replaces the user's recovery codes.
func (s *Store) ReplaceRecoveryCodes(ctx context.Context, userID string, hashes []string) error {
	return s.update(ctx, func(tx *sql.Tx) error { return replaceRecoveryCodes(ctx, tx, userID, hashes) })
}

func replaceRecoveryCodes(ctx context.Context, tx *sql.Tx, userID string, hashes []string) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM recovery_codes WHERE user_id = ?`, userID); err != nil {
		return err
	}
	for _, h := range hashes {
		if _, err := tx.ExecContext(ctx, `INSERT INTO recovery_codes (user_id, code_hash) VALUES (?, ?)`, userID, h); err != nil {
			return err
		}
	}
	return nil
}

// UseRecoveryCode uses up one of the user's recovery codes. It returns
// EINVALID under recovery_code when there is no such unused code.
func (s *Store) UseRecoveryCode(ctx context.Context, userID, hash string) error {
	return s.update(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE recovery_codes SET used_at = ? WHERE user_id = ? AND code_hash = ? AND used_at IS NULL`,
			FormatTime(s.Now()), userID, hash)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return Invalid("recovery_code", "The recovery code is invalid or was used already.")
		}
		return nil
	})
}

// DisableTwoFactor turns two-factor off and forgets the secret and recovery codes.
func (s *Store) DisableTwoFactor(ctx context.Context, userID string) error {
	return s.update(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE users SET two_factor_secret = '', two_factor_confirmed_at = NULL, updated_at = ? WHERE id = ?`,
			FormatTime(s.Now()), userID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM recovery_codes WHERE user_id = ?`, userID)
		return err
	})
}
