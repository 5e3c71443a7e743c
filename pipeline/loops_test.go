package pipeline_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recur-journal/recur/pipeline"
	"github.com/recur-journal/recur/pipeline/detect"
	"github.com/recur-journal/recur/pipeline/scripted"
	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

// describeCalls counts the describe requests the fake received, and
// returns the last one's user message.
func describeCalls(e *env) (int, string) {
	n, last := 0, ""
	for _, c := range e.fake.Calls() {
		if c.Request != nil && scripted.Step(c.Request) == "describe" {
			n++
			last = c.Request.Messages[len(c.Request.Messages)-1].Content
		}
	}
	return n, last
}

// detectingEnv is an env whose pipeline runs detection after each capture,
// at a fixed now, which it returns.
func detectingEnv(t *testing.T) (*env, time.Time) {
	t.Helper()
	now := time.Date(2026, 11, 5, 20, 0, 0, 0, time.UTC)
	return detectingEnvAt(t, func() time.Time { return now }), now
}

// detectingEnvAt is detectingEnv on the clock given.
func detectingEnvAt(t *testing.T, clock func() time.Time) *env {
	t.Helper()
	e := newEnv(t)
	e.store = storetest.MustOpenAt(t, filepath.Join(t.TempDir(), "detecting.db"), clock)
	e.user = storetest.MustCreateUser(t, e.store, "detecting@example.com")
	e.pipe = e.newPipeline(func(o *pipeline.Options) { o.Store = e.store; o.Detector = detect.NewDetector(e.store, clock) })
	return e
}

// A loop of three patterns (criticised, then skipping lunch and snapping)
// gets one description, from one model call, for all three.
func TestDescribeLoop(t *testing.T) {
	t.Parallel()
	e, now := detectingEnv(t)
	ctx := context.Background()
	process := func(text string, at time.Time) {
		t.Helper()
		c := &store.Capture{UserID: e.user.ID, Original: text, OccurredAt: at}
		if err := e.store.CreateCapture(ctx, c); err != nil {
			t.Fatal(err)
		}
		if _, err := e.pipe.ProcessNext(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for d := 1; d <= 3; d++ {
		process("My boss criticised my report. I felt anxious, skipped lunch and snapped at her.", now.AddDate(0, 0, -d))
	}
	list, _, err := e.store.ListPatterns(ctx, e.user.ID, store.Page{Page: 1, Limit: 10})
	if err != nil || len(list) != 3 {
		t.Fatalf("patterns = %+v, %v; want three", list, err)
	}
	n, prompt := describeCalls(e)
	if n != 1 {
		t.Fatalf("describe was asked %d times for a loop of three patterns, want once", n)
	}
	for _, want := range []string{"Pattern: criticism at work (trigger)", "Loop: criticism at work (trigger), then ",
		"skipping meals (bad behaviour)", "snapping at family (bad behaviour)"} {
		if !strings.Contains(prompt, want) {
			t.Errorf("describe prompt lacks %q:\n%s", want, prompt)
		}
	}
	described := func() []string {
		var out []string
		for _, p := range list {
			got, err := e.store.FindPattern(ctx, e.user.ID, p.ID)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, got.Description)
		}
		return out
	}
	d := described()
	if d[0] == "" || d[0] != d[1] || d[1] != d[2] || !strings.Contains(d[0], "snapping at family") {
		t.Fatalf("descriptions = %q, want one telling the loop, given to all three", d)
	}

	t.Run("RedescribedAsOneWhenTheyDiffer", func(t *testing.T) {
		// A description written before the loop was made is replaced by
		// the loop's, in one call.
		if err := e.store.SetPatternDescription(ctx, list[1].ID, "You skip meals.", "en", 3); err != nil {
			t.Fatal(err)
		}
		process("A quiet evening.", now.Add(-time.Hour))
		if n, _ := describeCalls(e); n != 2 {
			t.Fatalf("describe calls = %d, want one more", n)
		}
		if got := described(); got[0] != d[0] || got[1] != d[0] || got[2] != d[0] {
			t.Fatalf("descriptions = %q, want the loop's for all three", got)
		}
		process("Another quiet evening.", now.Add(-time.Minute))
		if n, _ := describeCalls(e); n != 2 {
			t.Fatalf("describe calls = %d, want none for a loop described already", n)
		}
	})
}
