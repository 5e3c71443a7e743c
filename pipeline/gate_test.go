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
