package pipeline_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/recur-journal/recur/pipeline"
	"github.com/recur-journal/recur/pipeline/detect"
	"github.com/recur-journal/recur/store"
)

// TestDescriptionKeepsUp: a description is written again, in the user's
// language, when its pattern has been seen on half again as many days as
// when it was written, or comes back after closing; and not twice within
// a day.
func TestDescriptionKeepsUp(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 5, 20, 0, 0, 0, time.UTC)
	e := detectingEnvAt(t, func() time.Time { return now }) // moved by the test alone, between runs
	ctx := context.Background()
	if err := e.store.PutSetting(ctx, e.user.ID, &store.Setting{Key: store.SettingAppLocale, Value: "pt-PT"}); err != nil {
		t.Fatal(err)
	}
	process := e.writeAt
	const boss = "My boss criticised my report. I felt anxious."
	calls := func(want int, why string) {
		t.Helper()
		if n, _ := describeCalls(e); n != want {
			t.Fatalf("describe calls = %d, want %d: %s", n, want, why)
		}
	}
	basis := func() (string, store.DescriptionBasis) {
		t.Helper()
		list, _, err := e.store.ListPatterns(ctx, e.user.ID, store.Page{Page: 1, Limit: 10})
		if err != nil || len(list) != 1 {
			t.Fatalf("patterns = %+v, %v; want one", list, err)
		}
		bases, err := e.store.DescriptionBases(ctx, e.user.ID)
		if err != nil {
			t.Fatal(err)
		}
		return list[0].ID, bases[list[0].ID]
	}

	for d := 3; d >= 1; d-- {
		process(boss, now.AddDate(0, 0, -d))
	}
	calls(1, "written when the pattern first appears")
	if _, b := basis(); b.Days != 3 || b.At == nil || !b.At.Equal(now) {
		t.Fatalf("basis = %d days at %v, want 3 days now", b.Days, b.At)
	}
	process(boss, now.Add(-time.Hour))
	calls(1, "four days are not half again as many as three")
	now = now.Add(time.Hour)
	process(boss, now.AddDate(0, 0, -5))
	calls(1, "five days would be, but it was written less than a day ago")

	now = now.AddDate(0, 0, 1)
	process("A quiet evening.", now.Add(-time.Hour))
	calls(2, "a day later, five days are half again as many as three")
	id, b := basis()
	if b.Days != 5 || !b.At.Equal(now) {
		t.Fatalf("basis = %d days at %v, want 5 days now", b.Days, b.At)
	}

	// Two quiet weeks close it; a sixth day brings it back.
	now = now.AddDate(0, 0, 14)
	if err := e.pipe.Refresh(ctx, e.user.ID); err != nil {
		t.Fatal(err)
	}
	if p, _ := e.store.FindPattern(ctx, e.user.ID, id); p.ClosedAt == nil {
		t.Fatal("the pattern did not close after two quiet weeks")
	}
	calls(2, "closing is no growth")
	process(boss, now.Add(-time.Hour))
	calls(3, "it came back after closing")
	p, err := e.store.FindPattern(ctx, e.user.ID, id)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(p.Description, "Isto volta muitas vezes") || p.DescriptionLocale != "pt-PT" {
		t.Errorf("refreshed description = %q (%s), want it in the user's pt-PT", p.Description, p.DescriptionLocale)
	}
	if _, last := describeCalls(e); !strings.Contains(last, "Language: European Portuguese (pt-PT)") {
		t.Errorf("the refresh was not asked in the user's language:\n%s", last)
	}
}

// TestDescriptionFromBeforeTheCountKeepsUpFromNow: a description written
// before Recur counted its days is not written again on that account; it
// takes today's count, and grows from there.
func TestDescriptionFromBeforeTheCountKeepsUpFromNow(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 5, 20, 0, 0, 0, time.UTC)
	e := detectingEnvAt(t, func() time.Time { return now })
	ctx := context.Background()
	process := e.writeAt
	for d := 4; d >= 1; d-- {
		process("My boss criticised my report. I felt anxious.", now.AddDate(0, 0, -d))
	}
	list, _, err := e.store.ListPatterns(ctx, e.user.ID, store.Page{Page: 1, Limit: 10})
	if err != nil || len(list) != 1 {
		t.Fatalf("patterns = %+v, %v; want one", list, err)
	}
	id := list[0].ID
	if err := e.store.SetPatternDescription(ctx, id, "You feel anxious when criticised.", "en", 0); err != nil {
		t.Fatal(err)
	}
	now = now.AddDate(0, 0, 2)
	before, _ := describeCalls(e)
	process("A quiet evening.", now.Add(-time.Hour))
	if n, _ := describeCalls(e); n != before {
		t.Fatalf("describe calls %d -> %d, want none for a description without a count", before, n)
	}
	bases, err := e.store.DescriptionBases(ctx, e.user.ID)
	if err != nil {
		t.Fatal(err)
	}
	if b := bases[id]; b.Days != 4 {
		t.Fatalf("basis = %d days, want today's 4", b.Days)
	}
	if p, _ := e.store.FindPattern(ctx, e.user.ID, id); p.Description != "You feel anxious when criticised." {
		t.Errorf("description = %q, want the one written before", p.Description)
	}
}

// writeAt writes an entry at the time given and analyses it at once, in
// the test's goroutine.
func (e *env) writeAt(text string, at time.Time) {
	e.t.Helper()
	ctx := context.Background()
	if err := e.store.CreateCapture(ctx, &store.Capture{UserID: e.user.ID, Original: text, OccurredAt: at}); err != nil {
		e.t.Fatal(err)
	}
	if _, err := e.pipe.ProcessNext(ctx); err != nil {
		e.t.Fatal(err)
	}
}

// countedDays is a DayCounter that counts the times it is asked.
type countedDays struct {
	pipeline.DayCounter
	asked atomic.Int32
}

func (c *countedDays) LoopDays(userID string, loc *time.Location, ids ...string) (map[string]bool, bool) {
	c.asked.Add(1)
	return c.DayCounter.LoopDays(userID, loc, ids...)
}

// TestWrappedDetectorTellsDays: with the Detector wrapped (as metrics and
// webhooks wrap it), the days of a description come from Options.Days, the
// Detector's last run, and not from reading the journal again.
func TestWrappedDetectorTellsDays(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 5, 20, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	e := detectingEnvAt(t, clock)
	det := detect.NewDetector(e.store, clock)
	days := &countedDays{DayCounter: det}
	e.pipe = e.newPipeline(func(o *pipeline.Options) {
		o.Store = e.store
		o.Detector = struct{ pipeline.Detector }{det}
		o.Days = days
	})
	for d := 3; d >= 1; d-- {
		e.writeAt("My boss criticised my report. I felt anxious.", now.AddDate(0, 0, -d))
	}
	if n, _ := describeCalls(e); n != 1 {
		t.Fatalf("describe calls = %d, want 1", n)
	}
	if days.asked.Load() == 0 {
		t.Fatal("the description's days were not asked of Options.Days")
	}
	bases, err := e.store.DescriptionBases(context.Background(), e.user.ID)
	if err != nil || len(bases) != 1 {
		t.Fatalf("bases = %v, %v; want one", bases, err)
	}
	for _, b := range bases {
		if b.Days != 3 {
			t.Fatalf("description written on %d days, want 3", b.Days)
		}
	}
}
