package store

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

// Factors a failed sign-in is counted against.
const (
	FactorPassword  = "password"
	FactorTwoFactor = "two_factor"
)

// Lockout bounds guessing of one factor of one account: Failures wrong
// tries within Window lock the factor for Lock. Tries during a lock are not
// counted, so a lock never grows longer than Lock. The account is told of a
// lock at most once every MailEvery.
type Lockout struct {
	Failures  int
	Window    time.Duration
	Lock      time.Duration
	MailEvery time.Duration
}

// FailureNote says what a counted failure did.
type FailureNote struct {
	Locked bool      // this failure locked the factor
	Until  time.Time // the end of the lock, when Locked
	Mail   bool      // the account is to be told: no mail about a lock within MailEvery
}

// SignInLockedUntil returns when the lock of the user's factor ends, or the
// zero time when the factor is not locked. An unknown user, or "", is not
// locked; the query is the same.
func (s *Store) SignInLockedUntil(ctx context.Context, userID, factor string) (time.Time, error) {
	var until sql.NullString
	err := s.read.QueryRowContext(ctx, `SELECT locked_until FROM sign_in_failures WHERE user_id = ? AND factor = ? AND locked_until > ?`,
		userID, factor, FormatTime(s.Now())).Scan(&until)
	if errors.Is(err, sql.ErrNoRows) {
		return time.Time{}, nil
	} else if err != nil {
		return time.Time{}, err
	}
	return ParseTime(until.String)
}

// NoteSignInFailure counts a wrong try of the user's factor and locks the
// factor when it is the l.Failures-th within l.Window. For an unknown user,
// or "", it does the same work (one write transaction, one look-up, one
// upsert) and stores nothing, so that timing tells nothing about the account.
func (s *Store) NoteSignInFailure(ctx context.Context, userID, factor string, l Lockout) (FailureNote, error) {
	var note FailureNote
	err := s.update(ctx, func(tx *sql.Tx) error {
		now := s.Now()
		var failures int
		var start string
		var until, mailed sql.NullString
		err := tx.QueryRowContext(ctx, `SELECT failures, window_start, locked_until, mailed_at FROM sign_in_failures
			WHERE user_id = ? AND factor = ?`, userID, factor).Scan(&failures, &start, &until, &mailed)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		windowStart, _ := ParseTime(start)
		if lockEnd, _ := ParseTime(until.String); until.Valid && lockEnd.After(now) {
			return nil // locked already: not counted, so the lock is not drawn out
		}
		if windowStart.IsZero() || !now.Before(windowStart.Add(l.Window)) {
			failures, windowStart = 0, now
		}
		failures++
		var lockedUntil, mailedAt any = until, mailed
		if failures >= l.Failures {
			note.Locked, note.Until = true, now.Add(l.Lock)
			lockedUntil = FormatTime(note.Until)
			failures, windowStart = 0, note.Until // counting starts again when the lock ends
			lastMail, _ := ParseTime(mailed.String)
			if note.Mail = !mailed.Valid || !now.Before(lastMail.Add(l.MailEvery)); note.Mail {
				mailedAt = FormatTime(now)
			}
		}
		// The user is looked up in the same statement: for an unknown one
		// nothing is inserted.
		_, err = tx.ExecContext(ctx, `INSERT INTO sign_in_failures (user_id, factor, failures, window_start, locked_until, mailed_at)
			SELECT id, ?, ?, ?, ?, ? FROM users WHERE id = ?
			ON CONFLICT (user_id, factor) DO UPDATE SET failures = excluded.failures, window_start = excluded.window_start,
				locked_until = excluded.locked_until, mailed_at = excluded.mailed_at`,
			factor, failures, FormatTime(windowStart), lockedUntil, mailedAt, userID)
		return err
	})
	if err != nil {
		return FailureNote{}, err
	}
	return note, nil
}

// ClearSignInFailures forgets the wrong tries of the user's factor after it
// was given right. A lock and when the account was last told stay.
func (s *Store) ClearSignInFailures(ctx context.Context, userID, factor string) error {
	return s.update(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE sign_in_failures SET failures = 0 WHERE user_id = ? AND factor = ? AND failures > 0`, userID, factor)
		return err
	})
}

// UnlockUser lifts every lock of the user and forgets their wrong tries. It
// reports whether a lock was in force.
func (s *Store) UnlockUser(ctx context.Context, userID string) (bool, error) {
	var n int64
	err := s.update(ctx, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sign_in_failures WHERE user_id = ? AND locked_until > ?`,
			userID, FormatTime(s.Now())).Scan(&n); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM sign_in_failures WHERE user_id = ?`, userID)
		return err
	})
	return n > 0, err
}

// UseTOTPStep records step (Unix seconds / 30) as the time step of the
// user's last authenticator code, so that a code works once. It returns
// EINVALID under code when a code of that step or a later one was used.
func (s *Store) UseTOTPStep(ctx context.Context, userID string, step int64) error {
	return s.update(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE users SET totp_last_step = ? WHERE id = ? AND totp_last_step < ?`, step, userID, step)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return Invalid("code", "This two-factor code was used already: wait for the next one.")
		}
		return nil
	})
}
