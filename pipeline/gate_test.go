package pipeline

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"
)

// stillClock is a clock that does not move: a test reads exact waits off it.
type stillClock struct{ now time.Time }

func (c stillClock) Now() time.Time { return c.now }

func (c stillClock) Sleep(ctx context.Context, _ time.Duration, wake <-chan struct{}) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-wake:
		return nil
	}
}

// newStillGate is a gate on a clock that does not move, logging nowhere.
func newStillGate(base, most time.Duration) *gate {
	return newGate(base, most, stillClock{time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC)}, slog.New(slog.NewTextHandler(io.Discard, nil)))
}

// TestBackoff checks the waits between probes: doubling from the base,
// never above the cap, never below three quarters of the step's wait.
func TestBackoff(t *testing.T) {
	t.Parallel()
	g := newStillGate(time.Second, 5*time.Minute)
	want := time.Second
	for step := range 20 {
		for range 50 {
			if d := g.delay(step); d > want || d < want*3/4 {
				t.Fatalf("delay(%d) = %v, want within [%v, %v]", step, d, want*3/4, want)
			}
		}
		want = min(2*want, 5*time.Minute)
	}
}

// TestRetryAfterHonoured checks that a failure whose server asked for a
// wait (Retry-After) puts the next probe no sooner, within the cap.
func TestRetryAfterHonoured(t *testing.T) {
	t.Parallel()
	g := newStillGate(time.Second, 2*time.Hour)
	g.report(&RetryLater{Wait: time.Hour, Err: ErrTransient})
	if ok, _, _, wait := g.admit(); ok || wait != time.Hour {
		t.Fatalf("admit = %v after %v; want a wait of the hour asked for", ok, wait)
	}
	g = newStillGate(time.Second, time.Minute)
	g.report(&RetryLater{Wait: time.Hour, Err: ErrTransient})
	if _, _, _, wait := g.admit(); wait != time.Minute {
		t.Fatalf("wait %v; want the hour asked for capped at the backoff's cap, a minute", wait)
	}
}
