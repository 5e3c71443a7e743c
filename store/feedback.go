package store

import (
	"context"
	"database/sql"
	"strings"
	"time"
	"unicode/utf8"
)

// FeedbackMaxLength is the longest feedback accepted, in characters.
const FeedbackMaxLength = 2000

// Feedback is a note a user sends to whoever runs the instance.
type Feedback struct {
	ID        string
	UserID    string
	Body      string
	CreatedAt time.Time
}

// Validate checks the body is 1 to FeedbackMaxLength characters and not blank.
// It returns EINVALID naming "feedback".
func (f *Feedback) Validate() error {
	if strings.TrimSpace(f.Body) == "" {
		return Invalid("feedback", "The feedback field is required.")
	}
	if utf8.RuneCountInString(f.Body) > FeedbackMaxLength {
		return Invalid("feedback", "The feedback may not be longer than %d characters.", FeedbackMaxLength)
	}
	return nil
}

// CreateFeedback validates and stores f. It returns EINVALID.
func (s *Store) CreateFeedback(ctx context.Context, f *Feedback) error {
	if err := f.Validate(); err != nil {
		return err
	}
	f.ID, f.CreatedAt = newID(), s.Now()
	return s.update(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO feedback (id, user_id, body, created_at) VALUES (?, ?, ?, ?)`,
			f.ID, f.UserID, f.Body, FormatTime(f.CreatedAt))
		return err
	})
}

// ListFeedback returns the user's feedback, newest first.
func (s *Store) ListFeedback(ctx context.Context, userID string) ([]Feedback, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT id, user_id, body, created_at FROM feedback WHERE user_id = ? ORDER BY id DESC`, userID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Feedback
	for rows.Next() {
		var f Feedback
		if err := rows.Scan(&f.ID, &f.UserID, &f.Body, dbTime{&f.CreatedAt}); err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

// FeedbackFrom is a feedback note with its sender's address.
type FeedbackFrom struct {
	Feedback
	Email string
}

// ListAllFeedback returns every user's feedback, newest first, for the
// server's owner to read.
func (s *Store) ListAllFeedback(ctx context.Context) ([]FeedbackFrom, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT f.id, f.user_id, f.body, f.created_at, u.email
		FROM feedback f JOIN users u ON u.id = f.user_id ORDER BY f.created_at DESC, f.id DESC`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []FeedbackFrom
	for rows.Next() {
		var f FeedbackFrom
		if err := rows.Scan(&f.ID, &f.UserID, &f.Body, dbTime{&f.CreatedAt}, &f.Email); err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, rows.Err()
}
