package store

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

// Delivery is one event on its way to one channel, and what became of it.
type Delivery struct {
	ID             string
	ChannelID      string
	UserID         string
	EventID        string
	EventType      string
	Body           string // the JSON posted: {id, type, created_at, data}
	State          string // DeliveryPending, DeliveryDelivered, DeliveryFailed or DeliveryDropped
	Attempts       int
	NextAttemptAt  *time.Time // while pending
	ResponseStatus *int       // of the last attempt that got an answer
	LastError      string     // why the last attempt failed
	CreatedAt      time.Time
	UpdatedAt      time.Time

	// Of the channel and its user, for sending.
	Kind   string // the channel's kind
	URL    string
	Token  string
	Secret string
	Email  string // the user's address, for mail
}

// OutboxEvent is an event to deliver to every channel of its user that
// wants its type.
type OutboxEvent struct {
	ID     string
	UserID string
	Type   string
	Body   string // the JSON every channel is sent
	// ChannelID, when set, sends the event to that channel alone, whatever
	// events it asked for (a test notification).
	ChannelID string
}

// EnqueueEvent puts ev in the outbox once for each of its user's channels
// that wants its type, due now. Beyond hourlyLimit deliveries made for
// the user in the last hour, the rows are written as dropped, so the log
// says what was not sent. It returns how many were queued to be sent.
func (s *Store) EnqueueEvent(ctx context.Context, ev OutboxEvent, hourlyLimit int) (int, error) {
	queued := 0
	err := s.update(ctx, func(tx *sql.Tx) error {
		now := s.Now()
		var recent int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM channel_deliveries WHERE user_id = ? AND created_at > ? AND state != ?`,
			ev.UserID, FormatTime(now.Add(-time.Hour)), DeliveryDropped).Scan(&recent); err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, `SELECT id, events FROM channels WHERE user_id = ?`, ev.UserID)
		if err != nil {
			return err
		}
		var ids []string
		for rows.Next() {
			var id, events string
			if err := rows.Scan(&id, &events); err != nil {
				rows.Close()
				return err
			}
			if (ev.ChannelID == "" && wants(events, ev.Type)) || id == ev.ChannelID {
				ids = append(ids, id)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, id := range ids {
			state, next, lastErr := DeliveryPending, any(FormatTime(now)), any(nil)
			if recent >= hourlyLimit {
				state, next, lastErr = DeliveryDropped, nil, "Over the limit of deliveries an account may have in an hour; not sent."
			} else {
				recent++
				queued++
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO channel_deliveries (id, channel_id, user_id, event_id, event_type, body, state,
				next_attempt_at, last_error, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				newID(), id, ev.UserID, ev.ID, ev.Type, ev.Body, state, next, lastErr, FormatTime(now), FormatTime(now)); err != nil {
				return err
			}
		}
		return nil
	})
	return queued, err
}

const deliveryColumns = `d.id, d.channel_id, d.user_id, d.event_id, d.event_type, d.body, d.state, d.attempts, d.next_attempt_at,
	d.response_status, coalesce(d.last_error, ''), d.created_at, d.updated_at, w.kind, w.url, w.token, w.secret, u.email`
const deliveryFrom = ` FROM channel_deliveries d JOIN channels w ON w.id = d.channel_id JOIN users u ON u.id = d.user_id`

func scanDelivery(row interface{ Scan(...any) error }) (*Delivery, error) {
	var d Delivery
	var status sql.NullInt64
	err := row.Scan(&d.ID, &d.ChannelID, &d.UserID, &d.EventID, &d.EventType, &d.Body, &d.State, &d.Attempts, dbNullTime{&d.NextAttemptAt},
		&status, &d.LastError, dbTime{&d.CreatedAt}, dbTime{&d.UpdatedAt}, &d.Kind, &d.URL, &d.Token, &d.Secret, &d.Email)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, NotFound("Delivery")
	} else if err != nil {
		return nil, err
	}
	if status.Valid {
		n := int(status.Int64)
		d.ResponseStatus = &n
	}
	return &d, nil
}

// DueDeliveries returns up to limit pending deliveries whose next attempt
// is due by now, the longest due first.
func (s *Store) DueDeliveries(ctx context.Context, now time.Time, limit int) ([]Delivery, error) {
	var list []Delivery
	err := s.view(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT `+deliveryColumns+deliveryFrom+` WHERE d.state = ? AND d.next_attempt_at <= ?
			ORDER BY d.next_attempt_at, d.id LIMIT ?`, DeliveryPending, FormatTime(now), limit)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			d, err := scanDelivery(rows)
			if err != nil {
				return err
			}
			list = append(list, *d)
		}
		return rows.Err()
	})
	return list, err
}

// NextDeliveryAt returns when the earliest pending delivery is due, or nil
// when none is pending.
func (s *Store) NextDeliveryAt(ctx context.Context) (*time.Time, error) {
	var next *time.Time
	err := s.view(ctx, func(tx *sql.Tx) error {
		return tx.QueryRowContext(ctx, `SELECT min(next_attempt_at) FROM channel_deliveries WHERE state = ?`, DeliveryPending).
			Scan(dbNullTime{&next})
	})
	return next, err
}

// Attempt is the outcome of one try to deliver.
type Attempt struct {
	Status int       // the receiver's answer; 0 when none came
	Err    string    // why it failed; empty when it was delivered
	Next   time.Time // when to try again; zero when no more tries are made
}

// RecordAttempt notes an attempt at the delivery: delivered when a.Err is
// empty, pending again until a.Next when it is set, failed otherwise. It
// returns ENOTFOUND when the delivery is gone (its channel was deleted).
func (s *Store) RecordAttempt(ctx context.Context, id string, a Attempt) error {
	state, next := DeliveryDelivered, any(nil)
	switch {
	case a.Err == "":
	case !a.Next.IsZero():
		state, next = DeliveryPending, FormatTime(a.Next)
	default:
		state = DeliveryFailed
	}
	status, lastErr := any(nil), any(nil)
	if a.Status != 0 {
		status = a.Status
	}
	if a.Err != "" {
		lastErr = a.Err
	}
	return s.update(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE channel_deliveries SET state = ?, attempts = attempts + 1, next_attempt_at = ?,
			response_status = ?, last_error = ?, updated_at = ? WHERE id = ?`, state, next, status, lastErr, FormatTime(s.Now()), id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return NotFound("Delivery")
		}
		return nil
	})
}

// PostponeDelivery puts off a pending delivery until next without counting
// an attempt, as when what it tells is not ready to be said. It returns
// ENOTFOUND when the delivery is gone or no longer pending.
func (s *Store) PostponeDelivery(ctx context.Context, id string, next time.Time) error {
	return s.update(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE channel_deliveries SET next_attempt_at = ?, updated_at = ? WHERE id = ? AND state = ?`,
			FormatTime(next), FormatTime(s.Now()), id, DeliveryPending)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return NotFound("Delivery")
		}
		return nil
	})
}

// ListDeliveries returns a page of the deliveries of the user's channel,
// newest first, and how many there are. Another user's channel is
// ENOTFOUND.
func (s *Store) ListDeliveries(ctx context.Context, userID string, kinds []string, channelID string, p Page) ([]Delivery, int, error) {
	var list []Delivery
	var total int
	err := s.view(ctx, func(tx *sql.Tx) (err error) {
		var n int
		cond, args := kindIn(kinds)
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM channels WHERE id = ? AND user_id = ?`+cond, append([]any{channelID, userID}, args...)...).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return NotFound("Channel")
		}
		list, total, err = listPage(ctx, tx, listQuery{columns: deliveryColumns, from: deliveryFrom + ` WHERE d.channel_id = ?`,
			args: []any{channelID}, order: `d.created_at DESC, d.id DESC`}, p, scanDelivery)
		return err
	})
	return list, total, err
}
