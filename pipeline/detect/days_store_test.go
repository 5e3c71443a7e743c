package detect_test

import (
	"context"
	"testing"
	"time"

	"github.com/recur-journal/recur/pipeline/detect"
	"github.com/recur-journal/recur/store/storetest"
)

// TestPatternDaysWithItsFeelings: a pattern is on the days its category
// came with its feelings; a plain mention of the category, with no feeling,
// is not a day of the pattern, on its card, its page or its strip.
func TestPatternDaysWithItsFeelings(t *testing.T) {
	t.Parallel()
	s, now, clock := atEvening(t)
	u := storetest.MustCreateUser(t, s, "u@example.com")
	ctx := context.Background()
	for day := 2; day <= 4; day++ {
		write(t, s, u, now.AddDate(0, 0, -day), criticised, anxious)
	}
	plain := now.AddDate(0, 0, -1)
	write(t, s, u, plain, criticised)
	if err := detect.NewDetector(s, clock).Detect(ctx, u.ID); err != nil {
		t.Fatal(err)
	}
	names, _ := patternIDs(t, s, u)
	id := names["criticism at work"]
	if id == "" {
		t.Fatalf("no pattern among %v", names)
	}
	with, written, err := s.PatternDays(ctx, u.ID, id, time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	if with != 3 || written != 4 {
		t.Errorf("pattern days = %d of %d, want 3 of 4: the day without a feeling is not the pattern's", with, written)
	}
	p, err := s.FindPattern(ctx, u.ID, id)
	if err != nil {
		t.Fatal(err)
	}
	d, err := s.PatternDetail(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Captures) != 3 {
		t.Errorf("the pattern rests on %d captures, want the 3 with its feeling", len(d.Captures))
	}
	tl, err := s.Timeline(ctx, u.ID, plain.Add(-time.Hour), now)
	if err != nil {
		t.Fatal(err)
	}
	if len(tl) != 1 || len(tl[0].Patterns) != 0 {
		t.Errorf("timeline of the plain day = %+v, want its capture without the pattern", tl)
	}
}
