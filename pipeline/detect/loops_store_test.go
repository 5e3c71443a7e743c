package detect_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/recur-journal/recur/pipeline/detect"
	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

// write stores an analysed capture of one situation with the tags, days
// before now, for the user.
func write(t *testing.T, s *store.Store, u *store.User, at time.Time, tags ...store.NewTag) {
	t.Helper()
	ctx := context.Background()
	c := &store.Capture{UserID: u.ID, Original: "A day.", OccurredAt: at}
	if err := s.CreateCapture(ctx, c); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ClaimCapture(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.CommitAnalysis(ctx, &store.Analysis{CaptureID: c.ID, UserID: u.ID, Translated: c.Original, Language: "en",
		Segments: []store.AnalysedSegment{{Start: 0, End: len(c.Original), Tags: tags}}}); err != nil {
		t.Fatal(err)
	}
}

var (
	criticised = store.NewTag{Type: store.TagTrigger, Name: "criticised by the manager", NewCategory: "criticism at work"}
	anxious    = store.NewTag{Type: store.TagNegativeFeeling, Name: "anxious", FeelingID: "anxious"}
	late       = store.NewTag{Type: store.TagBadBehaviour, Name: "stayed late", NewCategory: "staying late"}
	dinner     = store.NewTag{Type: store.TagBadBehaviour, Name: "skipped dinner", NewCategory: "skipping meals"}
)

// patternIDs returns the user's listed patterns' ids by name.
func patternIDs(t *testing.T, s *store.Store, u *store.User) (map[string]string, []string) {
	t.Helper()
	list, _, err := s.ListPatterns(context.Background(), u.ID, store.Page{Page: 1, Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	byName, ids := map[string]string{}, []string{}
	for _, p := range list {
		byName[p.Name] = p.ID
		ids = append(ids, p.ID)
	}
	return byName, ids
}

func related(l store.PatternLoop) string {
	var out []string
	for _, r := range l.Related {
		out = append(out, fmt.Sprintf("%s/%s/%d", r.Name, r.Kind, r.SharedDays))
	}
	return fmt.Sprint(out)
}

// atEvening opens a store whose clock stands at a fixed evening.
func atEvening(t *testing.T) (*store.Store, time.Time, func() time.Time) {
	now := time.Date(2026, 11, 20, 20, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	return storetest.MustOpenAt(t, filepath.Join(t.TempDir(), "detect.db"), clock), now, clock
}

func TestLoopsSaved(t *testing.T) {
	t.Parallel()
	s, now, clock := atEvening(t)
	alice := storetest.MustCreateUser(t, s, "alice@example.com")
	bob := storetest.MustCreateUser(t, s, "bob@example.com")
	d := detect.NewDetector(s, clock)
	ctx := context.Background()
	for _, u := range []*store.User{alice, bob} {
		for day := 1; day <= 4; day++ {
			write(t, s, u, now.AddDate(0, 0, -day), criticised, anxious, late, dinner)
		}
		if err := d.Detect(ctx, u.ID); err != nil {
			t.Fatal(err)
		}
	}
	names, ids := patternIDs(t, s, alice)
	boss := names["criticism at work"]
	loops, err := s.PatternLoops(ctx, alice.ID, ids...)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := related(loops[boss]), "[skipping meals/bad_behaviour/4 staying late/bad_behaviour/4]"; got != want {
		t.Errorf("criticism at work related = %s, want %s", got, want)
	}
	for name, id := range names {
		if loops[id].LeadID != boss {
			t.Errorf("%s led by %q, want criticism at work %s", name, loops[id].LeadID, boss)
		}
	}
	all, err := s.Loops(ctx, alice.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got := all[boss]; len(all) != 1 || len(got) != 3 || got[0] != boss {
		t.Errorf("loops = %v, want one of three led by %s", all, boss)
	}

	t.Run("AnotherUsersNeverAppear", func(t *testing.T) {
		_, bobIDs := patternIDs(t, s, bob)
		for _, c := range []struct {
			user *store.User
			ids  []string
		}{{alice, bobIDs}, {bob, ids}} {
			loops, err := s.PatternLoops(ctx, c.user.ID, c.ids...)
			if err != nil {
				t.Fatal(err)
			}
			for id, l := range loops {
				if l.LeadID != "" || l.Related == nil || len(l.Related) != 0 {
					t.Errorf("%s's loop of another user's pattern %s = %+v, want empty", c.user.Email, id, l)
				}
			}
		}
		if all, _ := s.Loops(ctx, bob.ID); len(all) != 1 || all[boss] != nil {
			t.Errorf("bob's loops = %v, want his own one only", all)
		}
	})

	t.Run("RewrittenByEachRun", func(t *testing.T) {
		// Four more days of criticism alone and four of staying late alone:
		// the two now share half of their situations, too few; skipping
		// meals still goes with both.
		for day := 5; day <= 8; day++ {
			write(t, s, alice, now.AddDate(0, 0, -day), criticised, anxious)
			write(t, s, alice, now.AddDate(0, 0, -day).Add(time.Hour), late, anxious)
		}
		if err := d.Detect(ctx, alice.ID); err != nil {
			t.Fatal(err)
		}
		loops, err := s.PatternLoops(ctx, alice.ID, ids...)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := related(loops[boss]), "[skipping meals/bad_behaviour/4]"; got != want {
			t.Errorf("criticism at work related = %s, want %s", got, want)
		}
		if got := loops[names["staying late"]].LeadID; got != boss {
			t.Errorf("staying late led by %q, want criticism at work through skipping meals", got)
		}
	})

	t.Run("RejectedLeavesTheLoop", func(t *testing.T) {
		if _, err := s.ReviewPattern(ctx, alice.ID, names["skipping meals"], store.PatternRejected); err != nil {
			t.Fatal(err)
		}
		loops, err := s.PatternLoops(ctx, alice.ID, ids...)
		if err != nil {
			t.Fatal(err)
		}
		if got := related(loops[boss]); got != "[]" {
			t.Errorf("criticism at work related = %s, want none once skipping meals is rejected", got)
		}
		if err := d.Detect(ctx, alice.ID); err != nil {
			t.Fatal(err)
		}
		if all, _ := s.Loops(ctx, alice.ID); len(all) != 0 {
			t.Errorf("loops = %v, want none after the next run", all)
		}
	})
}
