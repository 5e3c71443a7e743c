package detect_test

import (
	"context"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/recur-journal/recur/pipeline/detect"
	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

// TestLoopDaysUntold: a Detector tells no days before a run for the user,
// after a run that failed, for another timezone or for a pattern its run
// did not save; TestCachedFactsDetectAsFresh holds those it tells to the
// store's.
func TestLoopDaysUntold(t *testing.T) {
	t.Parallel()
	s, now, clock := atEvening(t)
	u := storetest.MustCreateUser(t, s, "days@example.com")
	d := detect.NewDetector(s, clock)
	ctx := context.Background()
	if _, ok := d.LoopDays(u.ID, time.UTC); ok {
		t.Fatal("days told before any run")
	}
	for day := 1; day <= 4; day++ {
		storetest.MustWriteAnalysed(t, s, u.ID, now.AddDate(0, 0, -day), criticised, anxious, late)
	}
	if err := d.Detect(ctx, u.ID); err != nil {
		t.Fatal(err)
	}
	_, patterns := patternIDs(t, s, u)
	loopDaysAsStored(t, s, d, u, 0)
	if _, ok := d.LoopDays(u.ID, time.FixedZone("elsewhere", 3600), patterns...); ok {
		t.Fatal("days told for another timezone")
	}
	if _, ok := d.LoopDays(u.ID, time.UTC, "no such pattern"); ok {
		t.Fatal("days told for a pattern the run did not save")
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := d.Detect(cancelled, u.ID); err == nil {
		t.Fatal("a cancelled run succeeded")
	}
	if _, ok := d.LoopDays(u.ID, time.UTC, patterns...); ok {
		t.Fatal("days told after a run that failed")
	}
}

// loopDaysAsStored holds the days the Detector tells from its last run to
// those store.LoopDays reads from the saved patterns, for every pattern,
// every loop and all of the user's patterns at once.
func loopDaysAsStored(t *testing.T, s *store.Store, d *detect.Detector, u *store.User, step int) {
	t.Helper()
	ctx := context.Background()
	loc, err := s.Location(ctx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	_, patterns := patternIDs(t, s, u)
	loops, err := s.Loops(ctx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	units := slices.Collect(maps.Values(loops))
	for _, id := range patterns {
		units = append(units, []string{id})
	}
	units = append(units, patterns)
	for _, unit := range units {
		want, err := s.LoopDays(ctx, u.ID, loc, unit...)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := d.LoopDays(u.ID, loc, unit...)
		if !ok || !maps.Equal(got, want) {
			t.Fatalf("step %d, patterns %v in %s: the detector tells %v (%v), the store %v", step, unit, loc,
				slices.Sorted(maps.Keys(got)), ok, slices.Sorted(maps.Keys(want)))
		}
	}
}
