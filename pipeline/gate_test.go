package pipeline

import (
	"io"
	"log/slog"
	"testing"
	"time"
)

// TestBackoff checks the waits between probes: doubling from the base,
// never above the cap, never below three quarters of the step's wait.
func TestBackoff(t *testing.T) {
	g := newGate(time.Second, 5*time.Minute, slog.New(slog.NewTextHandler(io.Discard, nil)))
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
	g := newGate(time.Second, 2*time.Hour, slog.New(slog.NewTextHandler(io.Discard, nil)))
	g.report(&RetryLater{Wait: time.Hour, Err: ErrTransient})
	if ok, _, _, wait := g.admit(); ok || wait < 59*time.Minute {
		t.Fatalf("admit = %v after %v; want a wait of the hour asked for", ok, wait)
	}
	g = newGate(time.Second, time.Minute, slog.New(slog.NewTextHandler(io.Discard, nil)))
	g.report(&RetryLater{Wait: time.Hour, Err: ErrTransient})
	if _, _, _, wait := g.admit(); wait > time.Minute {
		t.Fatalf("wait %v; want the hour asked for capped at the backoff's cap, a minute", wait)
	}
}
