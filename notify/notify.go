// Package notify tells a user's channels of events in their journal:
// webhooks, ntfy topics, mail and Web Push. Events are written to an outbox in the database when they
// happen and delivered by a worker that retries with backoff, so a restart
// loses none. Every target a user can aim is checked against the owner's
// rule on private addresses, when it is registered and again at each
// connection.
package notify

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/recur-journal/recur/store"
)

// Event types a channel may ask for.
const (
	CaptureProcessed = "capture.processed"
	CaptureFailed    = "capture.failed"
	PatternDetected  = "pattern.detected"
	PatternUrgent    = "pattern.urgent"
	PatternReopened  = "pattern.reopened"
	PatternClosed    = "pattern.closed"
	ReviewReady      = "review.ready"
	// Reminder is the daily reminder to write (see SetReminder).
	Reminder = "reminder"
	// Test is sent by "send a test notification" to one channel only.
	Test = "test"
)

// EventTypes lists every event type, in the order the documentation gives them.
var EventTypes = []string{CaptureProcessed, CaptureFailed, PatternDetected, PatternUrgent, PatternReopened, PatternClosed, ReviewReady, Reminder}

// Limits on what one user may make Recur send.
const (
	MaxChannels            = 10  // channels per user: webhooks, ntfy topics, mail and push subscriptions together
	MaxDeliveriesPerHour   = 300 // deliveries per user in any hour; beyond it they are dropped and logged
	SignatureHeader        = "Recur-Signature"
	maxResponseBytes       = 4 << 10
	defaultDeliveryTimeout = 10 * time.Second
	generatedSecretBytes   = 32
	webhookURLMaxLength    = 2048
	webhookSecretMinLength = 16
	webhookSecretMaxLength = 256
)

// Options configures a Notifier.
type Options struct {
	Store  *store.Store
	Logger *slog.Logger
	// AllowPrivateTargets lets channels aim at loopback, private and
	// link-local addresses ([notify] allow_private_targets).
	AllowPrivateTargets bool
	// Now is the clock deliveries are timed and signed by; nil is the
	// store's.
	Now func() time.Time
	// Timeout bounds each delivery; 0 means 10 seconds.
	Timeout time.Duration
	// Mailer sends the mail of mail channels; nil fails each such delivery.
	Mailer Mailer
	// DataDir is the data folder, where the VAPID keys of Web Push are
	// made on first use (VAPIDFile); empty fails each push delivery.
	DataDir string
	// PushSubject is the contact push services are given in each VAPID
	// signature: an https URL of the server or a mail address (without
	// "mailto:", which is added).
	PushSubject string
	// FCM, when set, sends events to the mobile app's push tokens.
	FCM *FCM
}

// Mail is a notification by mail, in plain text and HTML.
type Mail struct {
	To, Subject, Text, HTML string
}

// Mailer sends a mail now, saying whether it went.
type Mailer interface {
	SendMail(ctx context.Context, m Mail) error
}

// Notifier registers channels, records events in the outbox and delivers
// them.
type Notifier struct {
	opts   Options
	client *http.Client
	wake   chan struct{}
	vapid  *vapid
}

// New returns a Notifier. Its worker runs only once Run is called.
func New(opts Options) *Notifier {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Now == nil {
		opts.Now = opts.Store.Now
	}
	if opts.Timeout <= 0 {
		opts.Timeout = defaultDeliveryTimeout
	}
	v := &vapid{}
	if opts.DataDir != "" {
		v.path = filepath.Join(opts.DataDir, VAPIDFile)
	}
	return &Notifier{opts: opts, client: newClient(opts.AllowPrivateTargets, opts.Timeout), wake: make(chan struct{}, 1), vapid: v}
}

// NewWebhook is a webhook as its registration answers it: with its secret,
// which is shown this once.
type NewWebhook struct {
	store.Channel
	GeneratedSecret bool
}

// CreateWebhook checks and stores a webhook for the user. Without a secret
// one is generated. It returns EINVALID naming url, events or secret: a
// URL that is not http(s), that cannot be resolved, or that leads to an
// internal address while private targets are not allowed.
func (n *Notifier) CreateWebhook(ctx context.Context, userID, rawURL string, events []string, secret *string) (*NewWebhook, error) {
	if err := checkEvents(events); err != nil {
		return nil, err
	}
	if err := checkTarget(ctx, rawURL, n.opts.AllowPrivateTargets); err != nil {
		return nil, err
	}
	w := &NewWebhook{Channel: store.Channel{UserID: userID, Kind: store.ChannelWebhook, URL: strings.TrimSpace(rawURL), Events: events}}
	if secret != nil {
		if l := len(*secret); l < webhookSecretMinLength || l > webhookSecretMaxLength {
			return nil, store.Invalid("secret", "The secret must be %d to %d characters long.", webhookSecretMinLength, webhookSecretMaxLength)
		}
		w.Secret = *secret
	} else {
		b := make([]byte, generatedSecretBytes)
		rand.Read(b)
		w.Secret, w.GeneratedSecret = "whsec_"+hex.EncodeToString(b), true
	}
	if err := n.opts.Store.CreateChannel(ctx, &w.Channel, MaxChannels); err != nil {
		return nil, err
	}
	return w, nil
}

// CreateChannel checks and stores an ntfy or mail channel for the user:
// ntfy posts to the topic at rawURL (with token, when given, as its access
// token), under the same rule on private targets as webhooks; mail goes
// to the account's address and takes no URL. It returns EINVALID naming
// kind, url, token or events.
func (n *Notifier) CreateChannel(ctx context.Context, userID, kind, rawURL, token string, events []string) (*store.Channel, error) {
	if err := checkEvents(events); err != nil {
		return nil, err
	}
	c := &store.Channel{UserID: userID, Kind: kind, Events: events}
	switch kind {
	case store.ChannelNtfy:
		if err := checkTarget(ctx, rawURL, n.opts.AllowPrivateTargets); err != nil {
			return nil, err
		}
		if len(token) > webhookSecretMaxLength {
			return nil, store.Invalid("token", "The token may not be longer than %d characters.", webhookSecretMaxLength)
		}
		c.URL, c.Token = strings.TrimSpace(rawURL), token
	case store.ChannelMail:
		if rawURL != "" || token != "" {
			return nil, store.Invalid("url", "A mail channel goes to the account's own address and takes no url or token.")
		}
	default:
		return nil, store.Invalid("kind", "The kind must be ntfy or mail; webhooks are registered at /webhooks.")
	}
	if err := n.opts.Store.CreateChannel(ctx, c, MaxChannels); err != nil {
		return nil, err
	}
	return c, nil
}

func checkEvents(events []string) error {
	if len(events) == 0 {
		return store.Invalid("events", "Give at least one event type: %s.", strings.Join(EventTypes, ", "))
	}
	for _, e := range events {
		if !slices.Contains(EventTypes, e) {
			return store.Invalid("events", "The event type %q does not exist; known types are %s.", e, strings.Join(EventTypes, ", "))
		}
	}
	return nil
}

// Emit records an event of the type for the user, with data as its data,
// in the outbox of each of the user's webhooks that wants it, and wakes
// the worker. An error is logged, never returned: an event that cannot be
// recorded must not fail the work that caused it.
func (n *Notifier) Emit(ctx context.Context, userID, typ string, data any) {
	n.emit(ctx, store.OutboxEvent{UserID: userID, Type: typ}, data)
}

// SendTest sends a test event to the user's channel of one of the kinds
// alone. It returns ENOTFOUND for another user's channel, or one of
// another kind.
func (n *Notifier) SendTest(ctx context.Context, userID string, kinds []string, channelID string) error {
	c, err := n.opts.Store.FindChannel(ctx, userID, channelID)
	if err != nil {
		return err
	}
	if !slices.Contains(kinds, c.Kind) {
		return store.NotFound("Channel")
	}
	n.emit(ctx, store.OutboxEvent{UserID: userID, Type: Test, ChannelID: c.ID}, map[string]string{"channel_id": c.ID})
	return nil
}

// emit records ev with data as its data and wakes the worker.
func (n *Notifier) emit(ctx context.Context, ev store.OutboxEvent, data any) {
	userID, typ := ev.UserID, ev.Type
	if ev.ChannelID == "" {
		n.ensureFCMChannel(ctx, userID)
	}
	now := n.opts.Now().UTC()
	id := uuid.Must(uuid.NewV7()).String()
	body, err := json.Marshal(struct {
		ID        string `json:"id"`
		Type      string `json:"type"`
		CreatedAt string `json:"created_at"`
		Data      any    `json:"data"`
	}{id, typ, store.FormatTime(now), data})
	if err != nil {
		n.opts.Logger.Error("encode event", "type", typ, "error", err)
		return
	}
	ev.ID, ev.Body = id, string(body)
	queued, err := n.opts.Store.EnqueueEvent(context.WithoutCancel(ctx), ev, MaxDeliveriesPerHour)
	if err != nil {
		n.opts.Logger.Error("record event", "type", typ, "user_id", userID, "error", err)
		return
	}
	if queued > 0 {
		select {
		case n.wake <- struct{}{}:
		default:
		}
	}
}

// wants reports whether any of the user's webhooks wants one of the types.
func (n *Notifier) wants(ctx context.Context, userID string, types ...string) bool {
	n.ensureFCMChannel(ctx, userID)
	ok, err := n.opts.Store.WantsEvents(ctx, userID, types...)
	if err != nil {
		n.opts.Logger.Warn("read webhooks", "user_id", userID, "error", err)
	}
	return ok
}

// Sign returns the Recur-Signature header of body sent at t with secret:
// t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">.
func Sign(secret string, t time.Time, body []byte) string {
	ts := fmt.Sprint(t.Unix())
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts + "."))
	mac.Write(body)
	return "t=" + ts + ",v1=" + hex.EncodeToString(mac.Sum(nil))
}
