package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

// A list counts all of the user's rows and pages through them in order,
// each row on exactly one page, with nothing of another user's.
func TestListPages(t *testing.T) {
	ctx := context.Background()
	s := storetest.MustOpen(t)
	ana := storetest.MustCreateUser(t, s, "ana@example.com")
	ben := storetest.MustCreateUser(t, s, "ben@example.com")
	mustCapture(t, s, ben.ID, "Not Ana's.")
	const n, limit = 5, 2
	base := time.Date(2025, 6, 1, 9, 0, 0, 0, time.UTC)
	for i := range n {
		if err := s.CreateCapture(ctx, &store.Capture{UserID: ana.ID, Original: "Entry.", OccurredAt: base.AddDate(0, 0, i)}); err != nil {
			t.Fatal(err)
		}
	}
	seen := map[string]bool{}
	var last time.Time
	for page := 1; page <= n/limit+2; page++ {
		list, total, err := s.ListCaptures(ctx, ana.ID, store.Page{Page: page, Limit: limit})
		if err != nil {
			t.Fatal(err)
		}
		if total != n {
			t.Errorf("page %d: total %d, want %d", page, total, n)
		}
		if want := min(limit, max(n-(page-1)*limit, 0)); len(list) != want {
			t.Errorf("page %d holds %d, want %d", page, len(list), want)
		}
		for _, c := range list {
			if seen[c.ID] || c.UserID != ana.ID {
				t.Errorf("page %d: %s seen twice or not Ana's", page, c.ID)
			}
			if !last.IsZero() && c.OccurredAt.After(last) {
				t.Errorf("page %d: not newest first", page)
			}
			seen[c.ID], last = true, c.OccurredAt
		}
	}
	if len(seen) != n {
		t.Errorf("%d captures over all pages, want %d", len(seen), n)
	}
}
