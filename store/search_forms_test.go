package store_test

import (
	"context"
	"testing"

	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

// TestSearchFindsWordForms: "skipping" finds the entry about a skipped
// meal, written in English or in German through its translation, and the
// start of the word's stem still finds it.
func TestSearchFindsWordForms(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := storetest.MustOpen(t)
	ana := storetest.MustCreateUser(t, s, "ana@example.com")
	english := mustCapture(t, s, ana.ID, "I skipped lunch again.")
	processed(t, s, english, "I skipped lunch again.")
	german := mustCapture(t, s, ana.ID, "Ich habe das Mittagessen ausgelassen.")
	processed(t, s, german, "I skipped lunch.")
	mustCapture(t, s, ana.ID, "A quiet walk in the park.")
	for _, q := range []string{"skipping", "skips", "skip", "lunches", "ski"} {
		got, n, err := s.SearchCaptures(ctx, ana.ID, q, store.Page{Page: 1, Limit: 10})
		if err != nil || n != 2 {
			t.Errorf("search %q = %d (%s), %v; want the two entries about skipped lunch", q, n, ids(got), err)
		}
	}
}
