package store_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

// Detection reads the user's captures through the user's index (not the
// queue's index on status, which holds every user's captures) and their
// segments from the index segments_detection alone, without a sort and
// without a visit to the segments table for each row.
func TestDetectionFactsUseIndexes(t *testing.T) {
	t.Parallel()
	s := storetest.MustOpen(t)
	u := storetest.MustCreateUser(t, s, "plan@example.com")
	plan, err := s.DetectionPlan(context.Background(), u.ID)
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(plan, "\n")
	t.Logf("plan:\n%s", all)
	for _, want := range []string{"SEARCH c USING INDEX captures_user_list (user_id=?)", "SEARCH sg USING COVERING INDEX segments_detection (capture_id=?)"} {
		if !strings.Contains(all, want) {
			t.Errorf("the plan has no step %q:\n%s", want, all)
		}
	}
	if strings.Contains(all, "TEMP B-TREE") || strings.Contains(all, "captures_claim") {
		t.Errorf("the read sorts, or walks the queue's index:\n%s", all)
	}
}

// A reader that comes after another pruned every note of the user's
// changes reads the journal whole once, then only the changes: it reads up
// to the last change made, not to the last note left (none).
func TestFactsReadPastPrunedNotes(t *testing.T) {
	t.Parallel()
	s := storetest.MustOpen(t)
	u := storetest.MustCreateUser(t, s, "pruned@example.com")
	ctx := context.Background()
	write := func() {
		storetest.MustWriteAnalysed(t, s, u.ID, s.Now().Add(-time.Hour),
			store.NewTag{Type: store.TagTrigger, Name: "a late train", NewCategory: "commuting"})
	}
	write()
	write()
	var first, second store.FactsCache
	if _, err := s.CachedDetectionFacts(ctx, &first, u.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.PruneDetectionChanges(ctx, &first, u.ID); err != nil {
		t.Fatal(err)
	}
	f, err := s.CachedDetectionFacts(ctx, &second, u.ID)
	if err != nil || len(f.Captures) != 2 {
		t.Fatalf("facts of %+v, %v; want two captures", f, err)
	}
	read, pruned, ok, err := s.FactsReadTo(ctx, &second, u.ID)
	if err != nil || !ok || pruned == 0 || read < pruned {
		t.Fatalf("read to %d, pruned to %d (%v, %v): the next run would read the journal whole again", read, pruned, ok, err)
	}
	write()
	if f, err = s.CachedDetectionFacts(ctx, &second, u.ID); err != nil || len(f.Captures) != 3 {
		t.Fatalf("facts of %+v, %v; want three captures", f, err)
	}
	if next, _, _, _ := s.FactsReadTo(ctx, &second, u.ID); next <= read {
		t.Fatalf("read to %d after a new entry, %d before", next, read)
	}
}
