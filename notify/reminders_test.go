package notify_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/recur-journal/recur/notify"
	"github.com/recur-journal/recur/notify/notifytest"
	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

// setClock is a clock a test sets by hand.
type setClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *setClock) Now() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *setClock) Set(t time.Time) { c.mu.Lock(); defer c.mu.Unlock(); c.now = t }

// The daily reminder comes once a day at the user's local time, not
// before, on the local date even where UTC has moved on, and is skipped on
// a day they already wrote; a user who never turned it on hears nothing.
func TestDailyReminder(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	clock := &setClock{now: time.Date(2026, 3, 10, 18, 0, 0, 0, ny)}
	s := storetest.MustOpenAt(t, t.TempDir()+"/recur.db", clock.Now)
	ctx := context.Background()
	alice := storetest.MustCreateUser(t, s, "alice@example.com")
	bob := storetest.MustCreateUser(t, s, "bob@example.com")
	for _, u := range []*store.User{alice, bob} {
		if err := s.PutSetting(ctx, u.ID, &store.Setting{Key: store.SettingTimezone, Value: "America/New_York"}); err != nil {
			t.Fatal(err)
		}
	}
	rcv := notifytest.NewReceiver(t)
	rcv.SetSecret("the receiver's secret")
	hookTo(t, s, alice, rcv.URL, notify.Reminder)
	hookTo(t, s, bob, rcv.URL, notify.Reminder) // bob never turns reminders on
	n := notify.New(notify.Options{Store: s, Logger: quiet(), AllowPrivateTargets: true, Now: clock.Now})
	if _, err := s.FindSchedule(ctx, alice.ID, store.ScheduleReminder); store.ErrorCode(err) != store.ENOTFOUND {
		t.Fatalf("a new user's reminder: %v, want none (off by default)", err)
	}
	eight := "20:00"
	if err := n.SetReminder(ctx, alice.ID, &eight); err != nil {
		t.Fatal(err)
	}
	bad := "8pm"
	if err := n.SetReminder(ctx, alice.ID, &bad); store.ErrorCode(err) != store.EINVALID {
		t.Fatalf("a reminder at %q: %v, want EINVALID", bad, err)
	}

	for i, step := range []struct {
		at       time.Time
		write    bool // alice writes just before
		sent     int
		received []string // the dates reminded so far
	}{
		{time.Date(2026, 3, 10, 19, 59, 0, 0, ny), false, 0, nil},
		{time.Date(2026, 3, 10, 20, 0, 0, 0, ny), false, 1, []string{"2026-03-10"}}, // 00:00 UTC on the 11th
		{time.Date(2026, 3, 10, 23, 0, 0, 0, ny), false, 0, []string{"2026-03-10"}},
		{time.Date(2026, 3, 11, 20, 30, 0, 0, ny), true, 0, []string{"2026-03-10"}}, // she wrote that day
		{time.Date(2026, 3, 12, 7, 0, 0, 0, ny), false, 0, []string{"2026-03-10"}},
		{time.Date(2026, 3, 12, 21, 0, 0, 0, ny), false, 1, []string{"2026-03-10", "2026-03-12"}},
	} {
		if step.write {
			c := &store.Capture{UserID: alice.ID, Original: "A day.", OccurredAt: step.at.Add(-time.Hour)}
			clock.Set(step.at.Add(-time.Hour))
			if err := s.CreateCapture(ctx, c); err != nil {
				t.Fatal(err)
			}
		}
		clock.Set(step.at)
		sent, err := n.Remind(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := n.Work(ctx); err != nil {
			t.Fatal(err)
		}
		var dates []string
		for _, d := range rcv.Got() {
			if d.Type != notify.Reminder || !d.Signed {
				t.Fatalf("step %d: got %s (signed %v)", i, d.Type, d.Signed)
			}
			dates = append(dates, d.Data["date"].(string))
		}
		if sent != step.sent || len(dates) != len(step.received) || (len(dates) > 0 && dates[len(dates)-1] != step.received[len(step.received)-1]) {
			t.Fatalf("step %d at %s: sent %d, received %v; want %d, %v", i, step.at, sent, dates, step.sent, step.received)
		}
	}

	// Turned on after its time, it first comes the next day; turned off, never.
	clock.Set(time.Date(2026, 3, 13, 9, 0, 0, 0, ny))
	nine := "08:00"
	if err := n.SetReminder(ctx, alice.ID, &nine); err != nil {
		t.Fatal(err)
	}
	if sent, err := n.Remind(ctx); err != nil || sent != 0 {
		t.Fatalf("set at 09:00 for 08:00: sent %d, %v; want none until tomorrow", sent, err)
	}
	clock.Set(time.Date(2026, 3, 14, 8, 0, 0, 0, ny))
	if sent, err := n.Remind(ctx); err != nil || sent != 1 {
		t.Fatalf("the next morning: sent %d, %v; want 1", sent, err)
	}
	if err := n.SetReminder(ctx, alice.ID, nil); err != nil {
		t.Fatal(err)
	}
	clock.Set(time.Date(2026, 3, 15, 8, 0, 0, 0, ny))
	if sent, err := n.Remind(ctx); err != nil || sent != 0 {
		t.Fatalf("turned off: sent %d, %v", sent, err)
	}
}
