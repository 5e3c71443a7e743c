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

// TestUnusableMark checks what a run reads to tell whether its answers
// came during an outage of unusable answers: the mark is even with none,
// odd while one lasts, and differs from any earlier mark once one began,
// also after it ended, so a run that straddled an outage never blames its
// capture for answers the model gave to everyone.
func TestUnusableMark(t *testing.T) {
	t.Parallel()
	g := newStillGate(time.Second, time.Minute)
	before := g.unusableMark()
	if before%2 != 0 {
		t.Fatalf("mark %d before any outage, want even", before)
	}
	g.shut(errTest("connection refused"), false)
	if m := g.unusableMark(); m != before {
		t.Fatalf("an outage of failed calls changed the mark from %d to %d", before, m)
	}
	g.recover(false)
	g.shutUnusable(errTest("prose"))
	during := g.unusableMark()
	if during%2 != 1 {
		t.Fatalf("mark %d during an outage of unusable answers, want odd", during)
	}
	g.worked()
	after := g.unusableMark()
	if after%2 != 0 || after == before {
		t.Fatalf("mark %d after the outage ended (was %d before it), want even and different", after, before)
	}
}

type errTest string

func (e errTest) Error() string { return string(e) }
