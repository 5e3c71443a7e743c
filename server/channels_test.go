package server_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	recurmail "github.com/recur-journal/recur/mail"
	"github.com/recur-journal/recur/notify"
	"github.com/recur-journal/recur/server"
	"github.com/recur-journal/recur/store/storetest"
)

// ntfyTopic is a stand-in ntfy server's topic: it keeps each message's
// headers and text.
type ntfyTopic struct {
	*httptest.Server
	mu   sync.Mutex
	msgs []ntfyMessage
}

type ntfyMessage struct {
	Title, Priority, Auth, Text string
}

func newNtfyTopic(t *testing.T) *ntfyTopic {
	n := &ntfyTopic{}
	n.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		n.mu.Lock()
		n.msgs = append(n.msgs, ntfyMessage{Title: r.Header.Get("Title"), Priority: r.Header.Get("Priority"), Auth: r.Header.Get("Authorization"), Text: string(b)})
		n.mu.Unlock()
		io.WriteString(w, `{"id":"x","event":"message"}`)
	}))
	t.Cleanup(n.Close)
	return n
}

func (n *ntfyTopic) got() []ntfyMessage {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]ntfyMessage(nil), n.msgs...)
}

// smtpMailer sends a channel's mail through an SMTP server.
type smtpMailer struct{ *recurmail.SMTPSender }

func (m smtpMailer) SendMail(ctx context.Context, msg notify.Mail) error {
	return m.Send(ctx, recurmail.Message{To: msg.To, Subject: msg.Subject, Text: msg.Text, HTML: msg.HTML})
}

// An ntfy topic and the account's mail hear of the events they asked for
// in words, and of a test notification; an urgent pattern is sent at high
// priority with the topic's token. The rules of webhooks hold: a loopback
// topic is refused by default, another account's channel is 404, and the
// webhook routes and channel routes do not reach each other's records.
func TestChannels(t *testing.T) {
	mb := newMailbox(t)
	host, port, _ := net.SplitHostPort(mb.Addr)
	p, _ := strconv.Atoi(port)
	var n *notify.Notifier
	h := newHarness(t, func(o *server.Options) {
		n = notify.New(notify.Options{Store: o.Store, Logger: o.Logger, AllowPrivateTargets: true,
			Mailer: smtpMailer{recurmail.NewSMTPSender(recurmail.SMTPOptions{Host: host, Port: p, From: "recur@example.com", TLS: "none"})}})
		o.Notifier = n
	})
	topic := newNtfyTopic(t)
	ctx := context.Background()
	work := func() {
		t.Helper()
		if _, err := n.Work(ctx); err != nil {
			t.Fatal(err)
		}
	}

	res := h.do("POST", "/api/channels", h.tokenA, map[string]any{"kind": "ntfy", "url": topic.URL + "/recur", "token": "tk_topic", "events": []string{"pattern.urgent"}})
	if res.Status != 201 || !strings.Contains(string(res.Body), `"has_token":true`) || strings.Contains(string(res.Body), "tk_topic") {
		t.Fatalf("create ntfy: %d %s", res.Status, res.Body)
	}
	ntfyID := res.JSON(t)["data"].(map[string]any)["id"].(string)
	res = h.do("POST", "/api/channels", h.tokenA, map[string]any{"kind": "mail", "events": []string{"capture.failed"}})
	if res.Status != 201 || !strings.Contains(string(res.Body), `"url":null`) {
		t.Fatalf("create mail: %d %s", res.Status, res.Body)
	}
	mailID := res.JSON(t)["data"].(map[string]any)["id"].(string)

	n.Emit(ctx, h.alice.ID, notify.PatternUrgent, notify.PatternData{Name: "skipping meals", Urgent: true, State: "open"})
	n.Emit(ctx, h.alice.ID, notify.CaptureFailed, notify.CaptureData{ID: "c", Status: "failed"})
	work()
	if got := topic.got(); len(got) != 1 || got[0].Title != "Urgent: skipping meals" || got[0].Priority != "high" ||
		got[0].Auth != "Bearer tk_topic" || !strings.Contains(got[0].Text, "three days of the last seven") {
		t.Fatalf("ntfy got %+v", got)
	}
	if m := mb.next(t); m.To != "alice@example.com" || m.Subject != "Entry not read" || !strings.Contains(m.Text, "could not read an entry") {
		t.Fatalf("mail %+v", m)
	}

	h.run([]scenario{
		{name: "TestNtfy", method: "POST", path: "/api/channels/" + ntfyID + "/tests", token: h.tokenA, status: 202},
		{name: "ErrTestAnother", method: "POST", path: "/api/channels/" + ntfyID + "/tests", token: h.tokenB, status: 404},
		{name: "List", method: "GET", path: "/api/channels", token: h.tokenA, status: 200, contains: []string{`"kind":"ntfy"`, `"kind":"mail"`, `"total":2`},
			notContains: []string{"tk_topic"}},
		{name: "ListOthersEmpty", method: "GET", path: "/api/channels", token: h.tokenB, status: 200, contains: []string{`"total":0`}},
		{name: "NotAmongWebhooks", method: "GET", path: "/api/webhooks", token: h.tokenA, status: 200, contains: []string{`"total":0`}},
		{name: "ErrDeleteThroughWebhooks", method: "DELETE", path: "/api/webhooks/" + mailID, token: h.tokenA, status: 404},
		{name: "ErrDeliveriesOfAnother", method: "GET", path: "/api/channels/" + mailID + "/deliveries", token: h.tokenB, status: 404},
		{name: "Deliveries", method: "GET", path: "/api/channels/" + mailID + "/deliveries", token: h.tokenA, status: 200,
			contains: []string{`"event_type":"capture.failed"`, `"state":"delivered"`}},
		{name: "ErrMailWithURL", method: "POST", path: "/api/channels", token: h.tokenA, body: map[string]any{"kind": "mail", "url": "https://93.184.215.14/", "events": []string{"review.ready"}},
			status: 422, contains: []string{`"url":["A mail channel goes to the account's own address`}},
		{name: "ErrNtfyWithoutURL", method: "POST", path: "/api/channels", token: h.tokenA, body: map[string]any{"kind": "ntfy", "events": []string{"review.ready"}},
			status: 422, contains: []string{`"url":[`}},
		{name: "ErrDeleteAnother", method: "DELETE", path: "/api/channels/" + mailID, token: h.tokenB, status: 404},
		{name: "Delete", method: "DELETE", path: "/api/channels/" + mailID, token: h.tokenA, status: 204},
	})
	work()
	if got := topic.got(); len(got) != 2 || got[1].Title != "Test notification" {
		t.Fatalf("after the test: ntfy got %+v", got)
	}
}

// Without allow_private_targets, an ntfy topic on loopback is refused.
func TestChannelRefusesLoopbackByDefault(t *testing.T) {
	h := newHarness(t)
	h.run([]scenario{
		{name: "ErrLoopback", method: "POST", path: "/api/channels", token: h.tokenA, body: map[string]any{"kind": "ntfy", "url": "http://127.0.0.1:2586/recur", "events": []string{"pattern.detected"}},
			status: 422, contains: []string{`"url":["The url leads to a loopback, private or link-local address (127.0.0.1)`}},
		{name: "ErrLocalhost", method: "POST", path: "/api/channels", token: h.tokenA, body: map[string]any{"kind": "ntfy", "url": "http://localhost:2586/recur", "events": []string{"pattern.detected"}},
			status: 422, contains: []string{`"url":["The url leads to a loopback`}},
	})
}

// The daily reminder is off at first, set to a local time, refused at a
// time that is not one, and turned off again; each account has its own.
func TestReminderRoutes(t *testing.T) {
	h := newHarness(t)
	h.run([]scenario{
		{name: "OffAtFirst", method: "GET", path: "/api/reminders/me", token: h.tokenA, status: 200, contains: []string{`{"data":{"daily_at":null}}`}},
		{name: "On", method: "PUT", path: "/api/reminders/me", token: h.tokenA, body: map[string]any{"daily_at": "20:30"}, status: 200,
			contains: []string{`{"data":{"daily_at":"20:30"}}`}},
		{name: "Read", method: "GET", path: "/api/reminders/me", token: h.tokenA, status: 200, contains: []string{`"daily_at":"20:30"`}},
		{name: "OthersOff", method: "GET", path: "/api/reminders/me", token: h.tokenB, status: 200, contains: []string{`"daily_at":null`}},
		{name: "ErrNotATime", method: "PUT", path: "/api/reminders/me", token: h.tokenA, body: map[string]any{"daily_at": "25:00"}, status: 422,
			contains: []string{`"daily_at":[`}, invalid: true},
		{name: "ErrScope", method: "PUT", path: "/api/reminders/me", token: storetest.MustCreateToken(t, h.store, h.alice.ID, "settings:read"),
			body: map[string]any{"daily_at": "07:00"}, status: 403},
		{name: "Off", method: "PUT", path: "/api/reminders/me", token: h.tokenA, body: map[string]any{"daily_at": nil}, status: 200,
			contains: []string{`"daily_at":null`}},
		{name: "ReadOff", method: "GET", path: "/api/reminders/me", token: h.tokenA, status: 200, contains: []string{`"daily_at":null`}},
	})
}

// The weekly review is there for any begun week, refused for one that is
// not a week or has not begun; its weekday is off at first, chosen, and
// refused when it is not a weekday.
func TestReviewRoutes(t *testing.T) {
	h := newHarness(t)
	// The weeks of the user's own zone (RECUR_TEST_TIMEZONE), where the
	// server counts them.
	now := h.store.Now().In(storetest.Location(t))
	this, next := notify.WeekOf(now), notify.WeekOf(now.AddDate(0, 0, 8))
	h.run([]scenario{
		{name: "ThisWeek", method: "GET", path: "/api/reviews/" + this, token: h.tokenA, status: 200,
			contains: []string{`"week":"` + this + `"`, `"next":null`, `"new":[]`, `"came_back":[]`, `"quiet":[]`, `"accepted":[]`}},
		{name: "ErrNotBegun", method: "GET", path: "/api/reviews/" + next, token: h.tokenA, status: 422, contains: []string{`"week":["The week`}},
		{name: "ErrNotAWeek", method: "GET", path: "/api/reviews/2026-W60", token: h.tokenA, status: 422, contains: []string{`"week":[`}},
		{name: "ErrScope", method: "GET", path: "/api/reviews/" + this, token: storetest.MustCreateToken(t, h.store, h.alice.ID, "settings:read"), status: 403},
		{name: "ScheduleOff", method: "GET", path: "/api/review-schedules/me", token: h.tokenA, status: 200, contains: []string{`{"data":{"weekday":null}}`}},
		{name: "ScheduleOn", method: "PUT", path: "/api/review-schedules/me", token: h.tokenA, body: map[string]any{"weekday": "sunday"}, status: 200,
			contains: []string{`"weekday":"sunday"`}},
		{name: "ScheduleRead", method: "GET", path: "/api/review-schedules/me", token: h.tokenA, status: 200, contains: []string{`"weekday":"sunday"`}},
		{name: "ScheduleOthersOff", method: "GET", path: "/api/review-schedules/me", token: h.tokenB, status: 200, contains: []string{`"weekday":null`}},
		{name: "ErrScheduleDay", method: "PUT", path: "/api/review-schedules/me", token: h.tokenA, body: map[string]any{"weekday": "someday"}, status: 422,
			contains: []string{`"weekday":[`}, invalid: true},
	})
}
