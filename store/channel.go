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

// Channel kinds.
const (
	ChannelWebhook = "webhook" // a signed POST of the event's JSON to URL
	ChannelNtfy    = "ntfy"    // a message to the ntfy topic at URL, with Token when set
	ChannelMail    = "mail"    // a mail to the account's address
	// ChannelWebPush is a browser's push subscription: URL is its endpoint,
	// Token its P-256 key (p256dh) and Secret its auth secret.
	ChannelWebPush = "webpush"
	// ChannelFCM sends to all of the user's push tokens through Firebase
	// Cloud Messaging; it has no URL. Recur adds it while FCM is set up.
	ChannelFCM = "fcm"
)

// Channel is where a user asked to be told of events in their journal.
type Channel struct {
	ID        string
	UserID    string
	Kind      string   // ChannelWebhook, ChannelNtfy, ChannelMail or ChannelWebPush
	URL       string   // empty for mail
	Token     string   // an ntfy access token, or a push subscription's p256dh key
	Events    []string // event types, such as capture.processed
	Secret    string   // signs each webhook delivery; a push subscription's auth secret
	CreatedAt time.Time

	// SessionToken is, on saving a push subscription, the browser session
	// it was made in: the subscription ends when that session does
	// (signed out, signed out elsewhere, or run out). Empty for one made
	// with a bearer token, which lasts until it is deleted. Never read back.
	SessionToken string
}

// Validate checks that the channel has a known kind, a URL unless it is
// mail, a secret if it is a webhook, and at least one event, dropping
// repeated events. Whether the URL may be called and the events exist is
// the caller's to check. It returns EINVALID naming "kind", "url", "events"
// or "secret".
func (w *Channel) Validate() error {
	w.URL = strings.TrimSpace(w.URL)
	if !slices.Contains([]string{ChannelWebhook, ChannelNtfy, ChannelMail, ChannelWebPush, ChannelFCM}, w.Kind) {
		return Invalid("kind", "The kind must be webhook, ntfy, mail, webpush or fcm.")
	}
	if w.URL == "" && w.Kind != ChannelMail && w.Kind != ChannelFCM {
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
	if w.Secret == "" && w.Kind == ChannelWebhook {
		return Invalid("secret", "The secret may not be empty.")
	}
	return nil
}

// CreateChannel stores w for its user, who may hold at most max channels
// (besides the one of kind fcm that Recur adds).
// It returns EINVALID (naming "url" when the user already holds max).
func (s *Store) CreateChannel(ctx context.Context, w *Channel, max int) error {
	return s.createChannel(ctx, w, max, false)
}

// ReplaceChannelAt stores w for its user as CreateChannel does, after
// removing every channel of its kind at its URL, whoever's, with their
// deliveries: a browser's push endpoint reaches one account, the one that
// registered it last, with the keys it gave last.
func (s *Store) ReplaceChannelAt(ctx context.Context, w *Channel, max int) error {
	return s.createChannel(ctx, w, max, true)
}

func (s *Store) createChannel(ctx context.Context, w *Channel, max int, replace bool) error {
	if err := w.Validate(); err != nil {
		return err
	}
	return s.update(ctx, func(tx *sql.Tx) error {
		if replace {
			if _, err := tx.ExecContext(ctx, `DELETE FROM channels WHERE kind = ? AND url = ?`, w.Kind, w.URL); err != nil {
				return err
			}
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM channels WHERE user_id = ? AND kind <> ?`, w.UserID, ChannelFCM).Scan(&n); err != nil {
			return err
		}
		if n >= max {
			return Invalid("url", "An account may have at most %d notification channels (webhooks, ntfy topics, mail and push subscriptions together); delete one first.", max)
		}
		w.ID, w.CreatedAt = newID(), s.Now()
		if _, err := tx.ExecContext(ctx, `INSERT INTO channels (id, user_id, kind, url, token, events, secret, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
			w.ID, w.UserID, w.Kind, w.URL, w.Token, strings.Join(w.Events, " "), w.Secret, FormatTime(w.CreatedAt)); err != nil {
			return err
		}
		if w.SessionToken == "" || w.Kind != ChannelWebPush {
			return nil
		}
		// The session is named by its id; one not saved yet (or gone)
		// leaves the subscription unbound, as a token's is.
		_, err := tx.ExecContext(ctx, `INSERT INTO push_sessions (channel_id, session_id)
			SELECT ?, id FROM sessions WHERE token = ? AND id IS NOT NULL`, w.ID, w.SessionToken)
		return err
	})
}

const channelColumns = `id, user_id, kind, url, token, events, secret, created_at`

func scanChannel(row interface{ Scan(...any) error }) (*Channel, error) {
	var w Channel
	var events string
	err := row.Scan(&w.ID, &w.UserID, &w.Kind, &w.URL, &w.Token, &events, &w.Secret, dbTime{&w.CreatedAt})
	if errors.Is(err, sql.ErrNoRows) {
		return nil, NotFound("Channel")
	} else if err != nil {
		return nil, err
	}
	w.Events = strings.Fields(events)
	return &w, nil
}

// kindIn is an SQL condition that kind is one of the kinds, and its arguments.
func kindIn(kinds []string) (string, []any) {
	args := make([]any, len(kinds))
	for i, k := range kinds {
		args[i] = k
	}
	return ` AND kind IN (?` + strings.Repeat(`, ?`, max(len(kinds)-1, 0)) + `)`, args
}

// ListChannels returns a page of the user's channels of the kinds, newest
// first, and how many there are in all.
func (s *Store) ListChannels(ctx context.Context, userID string, kinds []string, p Page) ([]Channel, int, error) {
	var list []Channel
	var total int
	cond, args := kindIn(kinds)
	err := s.view(ctx, func(tx *sql.Tx) (err error) {
		list, total, err = listPage(ctx, tx, listQuery{columns: channelColumns, from: `FROM channels WHERE user_id = ?` + cond,
			args: append([]any{userID}, args...), order: `created_at DESC, id DESC`}, p, scanChannel)
		return err
	})
	return list, total, err
}

// FindChannel returns the user's channel; another user's is ENOTFOUND.
func (s *Store) FindChannel(ctx context.Context, userID, id string) (*Channel, error) {
	var w *Channel
	err := s.view(ctx, func(tx *sql.Tx) (err error) {
		w, err = scanChannel(tx.QueryRowContext(ctx, `SELECT `+channelColumns+` FROM channels WHERE id = ? AND user_id = ?`, id, userID))
		return err
	})
	return w, err
}

// DeleteChannel removes the user's channel of one of the kinds and its
// deliveries, sent or not. Another user's is ENOTFOUND.
func (s *Store) DeleteChannel(ctx context.Context, userID string, kinds []string, id string) error {
	return s.update(ctx, func(tx *sql.Tx) error {
		cond, args := kindIn(kinds)
		res, err := tx.ExecContext(ctx, `DELETE FROM channels WHERE id = ? AND user_id = ?`+cond, append([]any{id, userID}, args...)...)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return NotFound("Channel")
		}
		return nil
	})
}

// WantsEvents reports whether any of the user's channels wants an event of
// one of the types.
func (s *Store) WantsEvents(ctx context.Context, userID string, types ...string) (bool, error) {
	var hooks []string
	err := s.view(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT events FROM channels WHERE user_id = ?`, userID)
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
