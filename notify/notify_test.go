package notify_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/recur-journal/recur/notify"
	"github.com/recur-journal/recur/notify/notifytest"
	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// hookTo stores a webhook straight into the store, past the checks of
// CreateWebhook, as a name that resolved elsewhere at registration would.
func hookTo(t *testing.T, s *store.Store, u *store.User, url string, events ...string) *store.Channel {
	t.Helper()
	w := &store.Channel{UserID: u.ID, Kind: store.ChannelWebhook, URL: url, Events: events, Secret: "the receiver's secret"}
	if err := s.CreateChannel(context.Background(), w, notify.MaxChannels); err != nil {
		t.Fatal(err)
	}
	return w
}

func deliveries(t *testing.T, s *store.Store, u *store.User, w *store.Channel) []store.Delivery {
	t.Helper()
	list, _, err := s.ListDeliveries(context.Background(), u.ID, []string{w.Kind}, w.ID, store.Page{Page: 1, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	return list
}

// A delivery the receiver fails is tried again after each step of the
// backoff, by the clock, and not before; once answered 2xx it is
// delivered and never sent again. Each attempt is signed anew.
func TestDeliveryRetriesWithBackoff(t *testing.T) {
	clock := storetest.NewClock(t)
	s := storetest.MustOpenAt(t, t.TempDir()+"/recur.db", clock.Now)
	u := storetest.MustCreateUser(t, s, "alice@example.com")
	rcv := notifytest.NewReceiver(t, 500, 503)
	rcv.SetSecret("the receiver's secret")
	w := hookTo(t, s, u, rcv.URL, notify.ReviewReady)
	n := notify.New(notify.Options{Store: s, Logger: quiet(), AllowPrivateTargets: true, Now: clock.Now})
	ctx := context.Background()

	n.Emit(ctx, u.ID, notify.ReviewReady, map[string]string{"week": "2026-W48"})
	n.Emit(ctx, u.ID, notify.CaptureProcessed, map[string]string{"id": "not wanted"})
	for i, step := range []struct {
		advance  time.Duration
		tried    int
		state    string
		received int
	}{
		{0, 1, store.DeliveryPending, 1},                               // 500
		{notify.Backoff[0] - time.Second, 0, store.DeliveryPending, 1}, // not yet due
		{time.Second, 1, store.DeliveryPending, 2},                     // 503
		{notify.Backoff[1], 1, store.DeliveryDelivered, 3},             // 200
		{24 * time.Hour, 0, store.DeliveryDelivered, 3},
	} {
		clock.Advance(step.advance)
		tried, err := n.Work(ctx)
		if err != nil {
			t.Fatal(err)
		}
		list := deliveries(t, s, u, w)
		if len(list) != 1 {
			t.Fatalf("step %d: %d deliveries, want 1 (the webhook wants review.ready only)", i, len(list))
		}
		if tried != step.tried || list[0].State != step.state || len(rcv.Got()) != step.received {
			t.Fatalf("step %d: tried %d, state %s, received %d; want %d, %s, %d (error %q)", i, tried, list[0].State, len(rcv.Got()),
				step.tried, step.state, step.received, list[0].LastError)
		}
	}
	got := rcv.Got()
	for _, d := range got {
		if !d.Signed || d.Type != notify.ReviewReady || d.ID != got[0].ID || d.Data["week"] != "2026-W48" {
			t.Errorf("delivery %+v: want the same signed review.ready each time", d)
		}
	}
	if got[0].Signature == got[2].Signature {
		t.Errorf("the retry an hour later carries the first attempt's signature %q", got[0].Signature)
	}
}

// A delivery that keeps failing is given up after the last step of the
// backoff, and says why.
func TestDeliveryGivesUp(t *testing.T) {
	clock := storetest.NewClock(t)
	s := storetest.MustOpenAt(t, t.TempDir()+"/recur.db", clock.Now)
	u := storetest.MustCreateUser(t, s, "alice@example.com")
	statuses := make([]int, len(notify.Backoff)+1)
	for i := range statuses {
		statuses[i] = 500
	}
	rcv := notifytest.NewReceiver(t, statuses...)
	w := hookTo(t, s, u, rcv.URL, notify.PatternClosed)
	n := notify.New(notify.Options{Store: s, Logger: quiet(), AllowPrivateTargets: true, Now: clock.Now})
	n.Emit(context.Background(), u.ID, notify.PatternClosed, nil)
	for range len(notify.Backoff) + 3 {
		if _, err := n.Work(context.Background()); err != nil {
			t.Fatal(err)
		}
		clock.Advance(7 * time.Hour)
	}
	d := deliveries(t, s, u, w)[0]
	if d.State != store.DeliveryFailed || d.Attempts != len(notify.Backoff)+1 || d.ResponseStatus == nil || *d.ResponseStatus != 500 ||
		!strings.Contains(d.LastError, "500") {
		t.Fatalf("after every attempt failed: %+v", d)
	}
}

// By default no delivery reaches the machine's own addresses, even when
// the webhook got past registration (a name that resolved elsewhere
// then): the connection is refused and nothing arrives.
func TestDeliveryRefusesLoopbackByDefault(t *testing.T) {
	clock := storetest.NewClock(t)
	s := storetest.MustOpenAt(t, t.TempDir()+"/recur.db", clock.Now)
	u := storetest.MustCreateUser(t, s, "alice@example.com")
	rcv := notifytest.NewReceiver(t)
	w := hookTo(t, s, u, rcv.URL, notify.CaptureFailed)
	n := notify.New(notify.Options{Store: s, Logger: quiet(), Now: clock.Now})
	n.Emit(context.Background(), u.ID, notify.CaptureFailed, nil)
	if _, err := n.Work(context.Background()); err != nil {
		t.Fatal(err)
	}
	d := deliveries(t, s, u, w)[0]
	if len(rcv.Got()) != 0 || d.State != store.DeliveryPending || !strings.Contains(d.LastError, "allow_private_targets") {
		t.Fatalf("received %d; delivery %+v", len(rcv.Got()), d)
	}
	if _, err := n.CreateWebhook(context.Background(), u.ID, rcv.URL, []string{notify.CaptureFailed}, nil); store.ErrorCode(err) != store.EINVALID {
		t.Fatalf("registering %s: %v, want EINVALID", rcv.URL, err)
	}
	allowed := notify.New(notify.Options{Store: s, Logger: quiet(), Now: clock.Now, AllowPrivateTargets: true})
	if _, err := allowed.CreateWebhook(context.Background(), u.ID, rcv.URL, []string{notify.CaptureFailed}, nil); err != nil {
		t.Fatalf("registering %s with private targets allowed: %v", rcv.URL, err)
	}
}

// Beyond the hourly limit, deliveries are logged as dropped and never sent.
func TestDeliveriesOverTheHourlyLimitAreDropped(t *testing.T) {
	clock := storetest.NewClock(t)
	s := storetest.MustOpenAt(t, t.TempDir()+"/recur.db", clock.Now)
	u := storetest.MustCreateUser(t, s, "alice@example.com")
	w := hookTo(t, s, u, "https://93.184.215.14/", notify.CaptureProcessed)
	ctx := context.Background()
	for i, want := range []int{1, 1, 0} {
		queued, err := s.EnqueueEvent(ctx, store.OutboxEvent{ID: fmt.Sprint("event ", i), UserID: u.ID, Type: notify.CaptureProcessed, Body: "{}"}, 2)
		if err != nil || queued != want {
			t.Fatalf("event %d: queued %d, %v; want %d", i, queued, err, want)
		}
	}
	states := map[string]int{}
	for _, d := range deliveries(t, s, u, w) {
		states[d.State]++
	}
	if states[store.DeliveryPending] != 2 || states[store.DeliveryDropped] != 1 {
		t.Fatalf("states %v, want 2 pending and 1 dropped", states)
	}
	clock.Advance(time.Hour + time.Second)
	if queued, err := s.EnqueueEvent(ctx, store.OutboxEvent{ID: "e9", UserID: u.ID, Type: notify.CaptureProcessed, Body: "{}"}, 2); err != nil || queued != 1 {
		t.Fatalf("an hour later: queued %d, %v", queued, err)
	}
}

func TestInternal(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1": true, "10.1.2.3": true, "172.16.0.1": true, "192.168.1.1": true, "169.254.169.254": true, "100.64.0.1": true,
		"0.0.0.0": true, "::1": true, "::": true, "fe80::1": true, "fd00::1": true, "::ffff:127.0.0.1": true, "64:ff9b::a00:1": true,
		"224.0.0.1": true, "93.184.215.14": false, "1.1.1.1": false, "2606:4700::1111": false,
	} {
		if got := notify.Internal(netip.MustParseAddr(addr)); got != want {
			t.Errorf("Internal(%s) = %v, want %v", addr, got, want)
		}
	}
}

// The signature is the hex HMAC-SHA256 of "<t>.<body>", which a receiver
// checks with the secret alone.
func TestSign(t *testing.T) {
	body := []byte(`{"id":"x"}`)
	at := time.Unix(1764000000, 0)
	sig := notify.Sign("s3cret", at, body)
	if !strings.HasPrefix(sig, "t=1764000000,v1=") || !notifytest.Verify("s3cret", sig, body) {
		t.Fatalf("signature %q", sig)
	}
	if notifytest.Verify("other", sig, body) || notifytest.Verify("s3cret", sig, []byte(`{"id":"y"}`)) {
		t.Fatal("a signature verified with another secret or body")
	}
}
