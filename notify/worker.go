package notify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/recur-journal/recur/internal/i18n"
	"github.com/recur-journal/recur/store"
)

// Backoff is how long a failed delivery waits before each next attempt;
// after the last it is given up as failed, so a delivery gets
// len(Backoff)+1 attempts over about seven hours.
var Backoff = []time.Duration{30 * time.Second, 2 * time.Minute, 10 * time.Minute, time.Hour, 6 * time.Hour}

// deliveryBatch is how many due deliveries one pass reads at a time.
const deliveryBatch = 50

// idleWait is the longest the worker sleeps when nothing is due, and so
// how late a reminder may be: events wake it sooner, and so does the
// earliest retry.
const idleWait = time.Minute

// Run sends due reminders and delivers due events until ctx ends: at
// once, whenever an event is recorded, when the earliest retry falls due,
// and at least once a minute.
func (n *Notifier) Run(ctx context.Context) {
	log := n.opts.Logger.With("part", "notify")
	for {
		if _, err := n.Remind(ctx); err != nil && ctx.Err() == nil {
			log.Error("send reminders", "error", err)
		}
		if _, err := n.AnnounceReviews(ctx); err != nil && ctx.Err() == nil {
			log.Error("announce weekly reviews", "error", err)
		}
		if _, err := n.Work(ctx); err != nil && ctx.Err() == nil {
			log.Error("deliver events", "error", err)
		}
		wait := idleWait
		if next, err := n.opts.Store.NextDeliveryAt(ctx); err == nil && next != nil {
			// At least a second: a delivery that stays due (its attempt
			// could not be recorded) must not spin the loop.
			wait = min(max(next.Sub(n.opts.Now()), time.Second), idleWait)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-n.wake:
		case <-t.C:
		}
		t.Stop()
	}
}

// Work makes one attempt at every delivery due by the clock and returns
// how many it attempted.
func (n *Notifier) Work(ctx context.Context) (int, error) {
	done := 0
	for {
		due, err := n.opts.Store.DueDeliveries(ctx, n.opts.Now(), deliveryBatch)
		if err != nil {
			return done, err
		}
		for i := range due {
			if err := n.deliver(ctx, &due[i]); err != nil && store.ErrorCode(err) != store.ENOTFOUND {
				return done, err
			}
			done++
		}
		if len(due) < deliveryBatch {
			return done, nil
		}
	}
}

// deliver makes one attempt at d and records its outcome; a notice about
// a pattern not yet named in its reader's language is put off instead
// (see NameWait).
func (n *Notifier) deliver(ctx context.Context, d *store.Delivery) error {
	loc, body, unnamed := n.localized(ctx, d)
	if until := n.awaitName(d, unnamed); !until.IsZero() {
		return n.opts.Store.PostponeDelivery(ctx, d.ID, until)
	}
	status, err := n.send(ctx, d, loc, body)
	if err != nil && ctx.Err() != nil {
		return nil // shutting down: the attempt does not count, and is made after the next start
	}
	a := store.Attempt{Status: status}
	if err != nil {
		a.Err = err.Error()
		if d.Attempts < len(Backoff) {
			a.Next = n.opts.Now().Add(Backoff[d.Attempts])
		}
		n.opts.Logger.Info("webhook delivery failed", "part", "notify", "delivery_id", d.ID, "attempt", d.Attempts+1, "error", err)
	}
	return n.opts.Store.RecordAttempt(context.WithoutCancel(ctx), d.ID, a)
}

// send makes one attempt at d on its channel, told in loc's words from
// body (see localized), and returns the answer's HTTP status, if any.
func (n *Notifier) send(ctx context.Context, d *store.Delivery, loc *i18n.Locale, body []byte) (int, error) {
	switch d.Kind {
	case store.ChannelWebhook:
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.URL, bytes.NewReader(body))
		if err != nil {
			return 0, err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(SignatureHeader, Sign(d.Secret, n.opts.Now(), body))
		return n.do(req)
	case store.ChannelNtfy:
		msg := DescribeIn(loc, body)
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.URL, strings.NewReader(msg.Text))
		if err != nil {
			return 0, err
		}
		req.Header.Set("Title", msg.Title)
		req.Header.Set("Tags", msg.Tag)
		if msg.Urgent {
			req.Header.Set("Priority", "high")
		}
		if d.Token != "" {
			req.Header.Set("Authorization", "Bearer "+d.Token)
		}
		return n.do(req)
	case store.ChannelWebPush:
		msg, urgent := pushMessage(loc, body)
		return n.sendPush(ctx, d, msg, urgent)
	case store.ChannelFCM:
		msg, urgent := pushMessage(loc, body)
		return n.sendFCM(ctx, d, msg, urgent)
	case store.ChannelMail:
		if n.opts.Mailer == nil {
			return 0, errors.New("this server sends no mail")
		}
		msg := DescribeIn(loc, body)
		return 0, n.opts.Mailer.SendMail(ctx, Mail{To: d.Email, Subject: msg.Title, Text: msg.Text + "\n",
			HTML: "<p>" + html.EscapeString(msg.Text) + "</p>\n"})
	}
	return 0, fmt.Errorf("unknown channel kind %q", d.Kind)
}

// do sends req and returns the answer's status. Anything but a 2xx answer
// is an error.
func (n *Notifier) do(req *http.Request) (int, error) {
	req.Header.Set("User-Agent", "Recur-Notify/1")
	res, err := n.client.Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	io.Copy(io.Discard, io.LimitReader(res.Body, maxResponseBytes))
	if res.StatusCode < 200 || res.StatusCode > 299 {
		return res.StatusCode, fmt.Errorf("the receiver answered %s", res.Status)
	}
	return res.StatusCode, nil
}
