package store_test

import (
	"context"
	"testing"

	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

// TestFindingsOf: each listed capture comes with its feelings and the
// patterns it belongs to; another user's capture gives nothing.
func TestFindingsOf(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := storetest.MustOpen(t)
	u := storetest.MustAnalysedJournal(t, s, "ana@example.com")
	other := storetest.MustCreateUser(t, s, "ben@example.com")
	list, _, err := s.ListCaptures(ctx, u.ID, store.Page{Page: 1, Limit: 10})
	if err != nil || len(list) != 3 {
		t.Fatalf("captures %d, %v", len(list), err)
	}
	ids := []string{list[0].ID, list[1].ID, list[2].ID}
	got, err := s.FindingsOf(ctx, u.ID, ids)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		f := got[id]
		if len(f.Feelings) != 1 || f.Feelings[0].Name != "anxious" || f.Feelings[0].Valence != -1 {
			t.Errorf("capture %s feelings %+v, want anxious (unpleasant)", id, f.Feelings)
		}
		if len(f.Patterns) != 1 || f.Patterns[0].Name != "Work" {
			t.Errorf("capture %s patterns %+v, want Work", id, f.Patterns)
		}
	}
	if theirs, err := s.FindingsOf(ctx, other.ID, ids); err != nil || len(theirs) != 0 {
		t.Errorf("another user reads %+v, %v; want nothing", theirs, err)
	}
}
