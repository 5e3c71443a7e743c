package store

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"strings"
	"time"
)

// Delivery states.
const (
	DeliveryPending   = "pending"   // waiting for its first or next attempt
	DeliveryDelivered = "delivered" // the receiver answered 2xx
	DeliveryFailed    = "failed"    // every attempt failed; no more are made
	DeliveryDropped   = "dropped"   // over the user's hourly limit: never sent
)

// Webhook is a URL a user registered to be told of events in their journal.
type Webhook struct {
	ID        string
	UserID    string
	URL       string
	Events    []string // event types, such as capture.processed
	Secret    string   // signs each delivery
	CreatedAt time.Time
}

// Validate checks that the webhook has a URL and at least one event,
// dropping repeated events. Whether the URL may be called and the events
// exist is the caller's to check. It returns EINVALID naming "url" or
// "events".
func (w *Webhook) Validate() error {
	w.URL = strings.TrimSpace(w.URL)
	if w.URL == "" {
		return Invalid("url", "The url field is required.")
	}
	var events []string
	for _, e := range w.Events {
		if e = strings.TrimSpace(e); e != "" && !slices.Contains(events, e) {
			events = append(events, e)
		}
	}
	if len(events) == 0 {
		return Invalid("events", "Give at least one event type.")
	}
	w.Events = events
	if w.Secret == "" {
		return Invalid("secret", "The secret may not be empty.")
	}
	return nil
}

// CreateWebhook stores w for its user, who may hold at most max webhooks.
// It returns EINVALID (naming "url" when the user already holds max).
func (s *Store) CreateWebhook(ctx context.Context, w *Webhook, max int) error {
	if err := w.Validate(); err != nil {
		return err
	}
	return s.update(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM webhooks WHERE user_id = ?`, w.UserID).Scan(&n); err != nil {
			return err
		}
		if n >= max {
			return Invalid("url", "An account may have at most %d webhooks; delete one first.", max)
		}
		w.ID, w.CreatedAt = newID(), s.Now()
		_, err := tx.ExecContext(ctx, `INSERT INTO webhooks (id, user_id, url, events, secret, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
			w.ID, w.UserID, w.URL, strings.Join(w.Events, " "), w.Secret, FormatTime(w.CreatedAt))
		return err
	})
}

const webhookColumns = `id, user_id, url, events, secret, created_at`

func scanWebhook(row interface{ Scan(...any) error }) (*Webhook, error) {
	var w Webhook
	var events string
	err := row.Scan(&w.ID, &w.UserID, &w.URL, &events, &w.Secret, dbTime{&w.CreatedAt})
	if errors.Is(err, sql.ErrNoRows) {
		return nil, NotFound("Webhook")
	} else if err != nil {
		return nil, err
	}
	w.Events = strings.Fields(events)
	return &w, nil
}

// ListWebhooks returns a page of the user's webhooks, newest first, and
// how many there are in all.
func (s *Store) ListWebhooks(ctx context.Context, userID string, p Page) ([]Webhook, int, error) {
	var list []Webhook
	var total int
	err := s.view(ctx, func(tx *sql.Tx) (err error) {
		list, total, err = listPage(ctx, tx, listQuery{columns: webhookColumns, from: `FROM webhooks WHERE user_id = ?`,
			args: []any{userID}, order: `created_at DESC, id DESC`}, p, scanWebhook)
		return err
	})
	return list, total, err
}

// FindWebhook returns the user's webhook; another user's is ENOTFOUND.
func (s *Store) FindWebhook(ctx context.Context, userID, id string) (*Webhook, error) {
	var w *Webhook
	err := s.view(ctx, func(tx *sql.Tx) (err error) {
		w, err = scanWebhook(tx.QueryRowContext(ctx, `SELECT `+webhookColumns+` FROM webhooks WHERE id = ? AND user_id = ?`, id, userID))
		return err
	})
	return w, err
}

// DeleteWebhook removes the user's webhook and its deliveries, sent or
// not. Another user's is ENOTFOUND.
func (s *Store) DeleteWebhook(ctx context.Context, userID, id string) error {
	return s.update(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM webhooks WHERE id = ? AND user_id = ?`, id, userID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return NotFound("Webhook")
		}
		return nil
	})
}

// WantsEvents reports whether any of the user's webhooks wants an event of
// one of the types.
func (s *Store) WantsEvents(ctx context.Context, userID string, types ...string) (bool, error) {
	var hooks []string
	err := s.view(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT events FROM webhooks WHERE user_id = ?`, userID)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var events string
			if err := rows.Scan(&events); err != nil {
				return err
			}
			hooks = append(hooks, events)
		}
		return rows.Err()
	})
	for _, events := range hooks {
		for _, t := range types {
			if wants(events, t) {
				return true, err
			}
		}
	}
	return false, err
}

func wants(events, typ string) bool { return slices.Contains(strings.Fields(events), typ) }
