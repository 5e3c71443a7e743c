package detect_test

import (
	"context"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/recur-journal/recur/pipeline/detect"
	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

// TestLoopDaysAsStored holds the days a Detector tells from its last run
// to those store.LoopDays reads from the saved patterns, for every pattern
// and every loop, over a random journal that grows with entries of today
// and of long ago, loses entries, has entries moved in time and changes
// timezone; a run that failed, or another timezone, tells nothing.
func TestLoopDaysAsStored(t *testing.T) {
	t.Parallel()
	s, now, clock := atEvening(t)
	u := storetest.MustCreateUser(t, s, "days@example.com")
	d := detect.NewDetector(s, clock)
	ctx := context.Background()
	if _, ok := d.LoopDays(u.ID, time.UTC); ok {
		t.Fatal("days told before any run")
	}
	rng := rand.New(rand.NewPCG(27, 2))
	cheerful := store.NewTag{Type: store.TagPositiveFeeling, Name: "cheerful", FeelingID: "cheerful"}
	walk := store.NewTag{Type: store.TagGoodBehaviour, Name: "went for a walk", NewCategory: "walking"}
	sets := [][]store.NewTag{{criticised, anxious, late}, {criticised, anxious, late, dinner}, {dinner, anxious},
		{walk, cheerful}, {criticised, cheerful, walk}, {late}}
	var ids []string
	zones := []string{"UTC", "Pacific/Auckland", "America/Los_Angeles"}
	for step := range 60 {
		switch op := rng.IntN(10); {
		case op < 5 || len(ids) == 0:
			at := now.Add(-time.Duration(rng.IntN(40*24)) * time.Hour)
			if op == 0 {
				at = now.AddDate(-rng.IntN(3), 0, -rng.IntN(300)) // back-dated
			}
			ids = append(ids, storetest.MustWriteAnalysed(t, s, u.ID, at, sets[rng.IntN(len(sets))]...).ID)
		case op < 7:
			i := rng.IntN(len(ids))
			if err := s.DeleteCapture(ctx, u.ID, ids[i]); err != nil {
				t.Fatal(err)
			}
			ids = slices.Delete(ids, i, i+1)
		case op < 9:
			at := now.Add(-time.Duration(rng.IntN(60*24)) * time.Hour)
			if _, _, err := s.UpdateCapture(ctx, u.ID, ids[rng.IntN(len(ids))], store.CaptureUpdate{OccurredAt: &at}); err != nil {
				t.Fatal(err)
			}
		default:
			zone := zones[rng.IntN(len(zones))]
			if err := s.PutSetting(ctx, u.ID, &store.Setting{Key: store.SettingTimezone, Value: zone}); err != nil {
				t.Fatal(err)
			}
		}
		if err := d.Detect(ctx, u.ID); err != nil {
			t.Fatal(err)
		}
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
				t.Fatalf("step %d, patterns %v in %s: the detector tells %v (%v), the store %v", step, unit, loc, sorted(got), ok, sorted(want))
			}
		}
		if _, ok := d.LoopDays(u.ID, time.FixedZone("elsewhere", 3600), patterns...); ok {
			t.Fatalf("step %d: days told for another timezone", step)
		}
	}
	if _, ok := d.LoopDays(u.ID, time.UTC, "no such pattern"); ok {
		t.Fatal("days told for a pattern the run did not save")
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := d.Detect(cancelled, u.ID); err == nil {
		t.Fatal("a cancelled run succeeded")
	}
	if _, ok := d.LoopDays(u.ID, time.UTC); ok {
		t.Fatal("days told after a run that failed")
	}
}

func sorted(days map[string]bool) []string { return slices.Sorted(maps.Keys(days)) }
