package notify

import (
	"context"
	"crypto/ecdh"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"

	webpush "github.com/SherClockHolmes/webpush-go"

	"github.com/recur-journal/recur/internal/i18n"
	"github.com/recur-journal/recur/store"
)

// VAPIDFile is the name, inside the data folder, of the server's VAPID
// key pair (RFC 8292), with which it signs each Web Push request.
const VAPIDFile = "vapid.key"

// pushTTL is how long, in seconds, a push service keeps a notification for
// a device that is offline: a day.
const pushTTL = 24 * 60 * 60

// DefaultPushEvents are the events a device subscribes to when it names none.
var DefaultPushEvents = []string{PatternDetected, PatternUrgent, PatternReopened, ReviewReady, Reminder}

// vapidKeys are the server's VAPID key pair, base64url without padding, as
// the browser's applicationServerKey and the push library take them.
type vapidKeys struct {
	Public  string `json:"public_key"`
	Private string `json:"private_key"`
}

// vapid loads the server's VAPID keys, making them on first use.
type vapid struct {
	mu   sync.Mutex
	path string
	keys *vapidKeys
}

// get returns the key pair in path, making it (mode 0600) when the file does
// not exist yet.
func (v *vapid) get() (*vapidKeys, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.keys != nil {
		return v.keys, nil
	}
	if v.path == "" {
		return nil, errors.New("this server keeps no VAPID keys: it has no data folder")
	}
	b, err := os.ReadFile(v.path)
	if errors.Is(err, os.ErrNotExist) {
		priv, pub, err := webpush.GenerateVAPIDKeys()
		if err != nil {
			return nil, err
		}
		k := &vapidKeys{Public: pub, Private: priv}
		b, _ := json.Marshal(k)
		if err := os.WriteFile(v.path, append(b, '\n'), 0o600); err != nil {
			return nil, fmt.Errorf("write %s: %w", v.path, err)
		}
		v.keys = k
		return k, nil
	} else if err != nil {
		return nil, err
	}
	var k vapidKeys
	if err := json.Unmarshal(b, &k); err != nil || k.Public == "" || k.Private == "" {
		return nil, fmt.Errorf("%s is not a VAPID key pair Recur made; move it away to make a new one (every device must then turn notifications on again)", v.path)
	}
	v.keys = &k
	return &k, nil
}

// VAPIDPublicKey returns the server's VAPID public key, base64url: the
// applicationServerKey a browser subscribes with. The key pair is made in
// the data folder on first use.
func (n *Notifier) VAPIDPublicKey() (string, error) {
	k, err := n.vapid.get()
	if err != nil {
		return "", err
	}
	return k.Public, nil
}

// PushSubscription is a browser's PushSubscription as its toJSON gives it.
type PushSubscription struct {
	Endpoint string
	P256dh   string // the browser's P-256 public key, base64url
	Auth     string // its 16-byte auth secret, base64url
	// Session is the browser session's token when the subscription was
	// made in one: the subscription ends with that session.
	Session string
}

// decodeKey reads a key the browser gave in base64url, with or without padding.
func decodeKey(s string) ([]byte, error) {
	s = strings.TrimRight(strings.TrimSpace(s), "=")
	return base64.RawURLEncoding.DecodeString(s)
}

// Subscribe stores a browser's push subscription as a webpush channel of
// the user, for events (DefaultPushEvents when empty). The endpoint is
// under the same rule on private addresses as webhooks. An endpoint
// registered before, by this user or another (a shared browser someone
// else signed in on), is replaced: it reaches this user alone, with the
// keys given now. It returns
// EINVALID naming endpoint, p256dh, auth or events.
func (n *Notifier) Subscribe(ctx context.Context, userID string, sub PushSubscription, events []string) (*store.Channel, error) {
	if len(events) == 0 {
		events = DefaultPushEvents
	}
	if err := checkEvents(events); err != nil {
		return nil, err
	}
	if err := checkTarget(ctx, sub.Endpoint, n.opts.AllowPrivateTargets); err != nil {
		return nil, store.Invalid("endpoint", "%s", store.ErrorMessage(err))
	}
	if b, err := decodeKey(sub.P256dh); err != nil || len(b) != 65 {
		return nil, store.Invalid("p256dh", "The p256dh key must be an uncompressed P-256 point in base64url, as PushSubscription.getKey gives it.")
	} else if _, err := ecdh.P256().NewPublicKey(b); err != nil {
		return nil, store.Invalid("p256dh", "The p256dh key is not a point on P-256.")
	}
	if b, err := decodeKey(sub.Auth); err != nil || len(b) != 16 {
		return nil, store.Invalid("auth", "The auth secret must be 16 bytes in base64url, as PushSubscription.getKey gives it.")
	}
	c := &store.Channel{UserID: userID, Kind: store.ChannelWebPush, URL: strings.TrimSpace(sub.Endpoint), Token: sub.P256dh, Secret: sub.Auth, Events: events, SessionToken: sub.Session}
	if err := n.opts.Store.ReplaceChannelAt(ctx, c, MaxChannels); err != nil {
		var e *store.Error
		if errors.As(err, &e) && e.Code == store.EINVALID && e.Field == "url" {
			return nil, store.Invalid("endpoint", "%s", e.Message) // over the limit, said of the field this route has
		}
		return nil, err
	}
	return c, nil
}

// PushMessage is what the service worker receives in a push: the event
// in words and the page a click opens.
type PushMessage struct {
	Title string `json:"title"`
	Body  string `json:"body"`
	Type  string `json:"type"`
	URL   string `json:"url"` // a path of the web app, such as /patterns/ID
}

// pushMessage tells the event whose JSON body is body as a PushMessage in
// loc's words, and whether it is urgent.
func pushMessage(loc *i18n.Locale, body []byte) (PushMessage, bool) {
	var ev struct {
		Type string         `json:"type"`
		Data map[string]any `json:"data"`
	}
	json.Unmarshal(body, &ev)
	id, _ := ev.Data["id"].(string)
	msg := DescribeIn(loc, body)
	out := PushMessage{Title: msg.Title, Body: msg.Text, Type: ev.Type, URL: "/"}
	switch {
	case strings.HasPrefix(ev.Type, "pattern.") && id != "":
		out.URL = "/patterns/" + id
	case strings.HasPrefix(ev.Type, "capture.") && id != "":
		out.URL = "/entries/" + id
	case ev.Type == ReviewReady:
		if p, _ := ev.Data["path"].(string); strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "//") {
			out.URL = p
		}
	case ev.Type == Test:
		out.URL = "/settings/notifications"
	}
	return out, msg.Urgent
}

// sendPush encrypts the event for the subscription d holds (RFC 8291) and
// posts it to its push service, signed with the server's VAPID key (RFC
// 8292), through the client that refuses internal addresses. A
// subscription the push service says is gone (404, 410) is removed.
func (n *Notifier) sendPush(ctx context.Context, d *store.Delivery, msg PushMessage, urgent bool) (int, error) {
	keys, err := n.vapid.get()
	if err != nil {
		return 0, err
	}
	payload, _ := json.Marshal(msg)
	urgency := webpush.UrgencyNormal
	if urgent {
		urgency = webpush.UrgencyHigh
	}
	res, err := webpush.SendNotificationWithContext(ctx, payload,
		&webpush.Subscription{Endpoint: d.URL, Keys: webpush.Keys{P256dh: d.Token, Auth: d.Secret}},
		&webpush.Options{HTTPClient: userAgent{n.client}, Subscriber: n.opts.PushSubject, TTL: pushTTL, Urgency: urgency,
			VAPIDPublicKey: keys.Public, VAPIDPrivateKey: keys.Private})
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	io.Copy(io.Discard, io.LimitReader(res.Body, maxResponseBytes))
	switch {
	case res.StatusCode == http.StatusNotFound || res.StatusCode == http.StatusGone:
		if err := n.opts.Store.DeleteChannel(context.WithoutCancel(ctx), d.UserID, []string{store.ChannelWebPush}, d.ChannelID); err != nil {
			n.opts.Logger.Warn("remove a push subscription that is gone", "channel_id", d.ChannelID, "error", err)
		}
		return res.StatusCode, fmt.Errorf("the push service answered %s: the subscription is gone and was removed", res.Status)
	case res.StatusCode < 200 || res.StatusCode > 299:
		return res.StatusCode, fmt.Errorf("the push service answered %s", res.Status)
	}
	return res.StatusCode, nil
}

// userAgent sends requests through c with Recur's User-Agent.
type userAgent struct{ c *http.Client }

func (u userAgent) Do(req *http.Request) (*http.Response, error) {
	req.Header.Set("User-Agent", "Recur-Notify/1")
	return u.c.Do(req)
}
