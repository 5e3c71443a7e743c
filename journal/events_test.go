package journal_test

import (
	"errors"
	"strconv"
	"testing"

	"github.com/recur-journal/recur/journal"
)

func captureEvent(user, id string) journal.Event {
	return journal.Event{Type: journal.EventCapture, UserID: user, Data: journal.CaptureEvent{ID: id, Status: "queued"}}
}

func TestEventsGoToTheirUserOnly(t *testing.T) {
	t.Parallel()
	e := journal.NewEvents()
	alice, stopA := e.Subscribe("alice")
	defer stopA()
	bob, stopB := e.Subscribe("bob")
	defer stopB()
	e.Publish(captureEvent("alice", "a1"))
	if got := (<-alice).Data.(journal.CaptureEvent).ID; got != "a1" {
		t.Fatalf("alice got %s, want a1", got)
	}
	select {
	case ev := <-bob:
		t.Fatalf("bob got alice's event %+v", ev)
	default:
	}
}

// A subscriber that does not read never holds up Publish: it keeps the
// newest SubscriberBuffer events and loses the older ones.
func TestSlowSubscriberLosesOldest(t *testing.T) {
	t.Parallel()
	e := journal.NewEvents()
	ch, stop := e.Subscribe("alice")
	defer stop()
	n := journal.SubscriberBuffer * 3
	for i := range n {
		e.Publish(captureEvent("alice", strconv.Itoa(i)))
	}
	if got, want := len(ch), journal.SubscriberBuffer; got != want {
		t.Fatalf("%d events wait, want %d", got, want)
	}
	first := (<-ch).Data.(journal.CaptureEvent).ID
	if want := strconv.Itoa(n - journal.SubscriberBuffer); first != want {
		t.Fatalf("oldest kept event is %s, want %s", first, want)
	}
}

func TestSubscribersPerUserAreBounded(t *testing.T) {
	t.Parallel()
	e := journal.NewEvents()
	var stops []func()
	for range journal.MaxSubscribers {
		_, stop, err := e.TrySubscribe("alice")
		if err != nil {
			t.Fatal(err)
		}
		stops = append(stops, stop)
	}
	if _, _, err := e.TrySubscribe("alice"); !errors.Is(err, journal.ErrTooManySubscribers) {
		t.Fatalf("subscription %d: %v, want ErrTooManySubscribers", journal.MaxSubscribers+1, err)
	}
	refused, stop := e.Subscribe("alice")
	stop()
	if _, open := <-refused; open {
		t.Fatal("a refused Subscribe gave an open channel")
	}
	if _, _, err := e.TrySubscribe("bob"); err != nil {
		t.Fatalf("another user is refused too: %v", err)
	}
	stops[0]()
	stops[0]() // twice is harmless
	if _, _, err := e.TrySubscribe("alice"); err != nil {
		t.Fatalf("after one ended: %v", err)
	}
}

func TestCancelClosesAndStopsDelivery(t *testing.T) {
	t.Parallel()
	e := journal.NewEvents()
	ch, stop := e.Subscribe("alice")
	if !e.Watching("alice") {
		t.Fatal("not watching with a subscriber")
	}
	stop()
	if _, open := <-ch; open {
		t.Fatal("channel open after cancel")
	}
	if e.Watching("alice") {
		t.Fatal("still watching after the only subscriber ended")
	}
	e.Publish(captureEvent("alice", "late")) // must not panic on a closed channel
}

func TestHighlightSnippet(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, in, want string }{
		{"Marks", "a \x02cat\x03 sat", "a <mark>cat</mark> sat"},
		{"EscapesText", "<b>\x02me\x03</b> & \"you\"", "&lt;b&gt;<mark>me</mark>&lt;/b&gt; &amp; &#34;you&#34;"},
		{"StrayClose", "x\x03 \x02y\x03", "x <mark>y</mark>"},
		{"StrayOpenInsideMatch", "\x02a\x02b\x03", "<mark>ab</mark>"},
		{"UnclosedIsClosed", "\x02a", "<mark>a</mark>"},
		{"Plain", "nothing", "nothing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := journal.HighlightSnippet(tc.in); got != tc.want {
				t.Fatalf("HighlightSnippet(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}
