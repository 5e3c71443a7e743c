package store_test

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

// A list counts all of the user's rows and pages through them in order,
// each row on exactly one page, with nothing of another user's.
func TestListPages(t *testing.T) {
	t.Parallel()
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

// The number of captures a list gives is kept, not counted, so every way a
// capture comes or goes must keep it: captures there before the count was
// kept, writing, importing, restoring, deleting one, and deleting the user.
func TestCaptureCountKept(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "recur.db")
	s, db := openBefore(t, path, 18)
	ana := storetest.MustCreateUser(t, s, "ana@example.com")
	ben := storetest.MustCreateUser(t, s, "ben@example.com")
	for i := range 3 {
		mustCapture(t, s, ana.ID, fmt.Sprintf("Written before the count was kept, %d.", i))
	}
	if _, err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	check := func(step string, u *store.User) {
		t.Helper()
		var want int
		if err := db.QueryRow(`SELECT count(*) FROM captures WHERE user_id = ?`, u.ID).Scan(&want); err != nil {
			t.Fatal(err)
		}
		_, total, err := s.ListCaptures(ctx, u.ID, store.Page{Page: 1, Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		if total != want {
			t.Errorf("%s: %s's list gives %d captures, there are %d", step, u.Email, total, want)
		}
	}
	check("migrated", ana)
	check("none yet", ben)

	c := mustCapture(t, s, ana.ID, "Written now.")
	check("written", ana)
	if _, err := s.ImportCaptures(ctx, ana.ID, "notes", []store.ImportEntry{
		{OccurredAt: time.Date(2024, 1, 2, 8, 0, 0, 0, time.UTC), Text: "Imported one.", Source: "1"},
		{OccurredAt: time.Date(2024, 1, 3, 8, 0, 0, 0, time.UTC), Text: "Imported two.", Source: "2"},
	}); err != nil {
		t.Fatal(err)
	}
	check("imported", ana)
	if err := s.DeleteCapture(ctx, ana.ID, c.ID); err != nil {
		t.Fatal(err)
	}
	check("deleted", ana)

	var export bytes.Buffer
	if err := s.Export(ctx, ana.ID, &export); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Restore(ctx, ben.ID, "restore", store.OpenBytes(export.Bytes())); err != nil {
		t.Fatal(err)
	}
	check("restored", ben)

	if _, err := s.DeleteUser(ctx, ana.ID); err != nil {
		t.Fatal(err)
	}
	var rows int
	if err := db.QueryRow(`SELECT count(*) FROM capture_counts WHERE user_id = ?`, ana.ID).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if rows != 0 {
		t.Errorf("a deleted user's count stays behind")
	}
	check("another user deleted", ben)
}

// A page of captures is read in list order from the index captures_user_list:
// nothing is sorted in a temporary B-tree, so a page deep in a long journal
// does not sort every row before it.
func TestCaptureListUsesIndex(t *testing.T) {
	t.Parallel()
	s := storetest.MustOpen(t)
	plan, err := s.CaptureListPlan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(plan, "\n")
	if strings.Contains(all, "TEMP B-TREE") {
		t.Errorf("a page of captures sorts in a temporary B-tree:\n%s", all)
	}
	if !strings.Contains(all, "captures_user_list") {
		t.Errorf("a page of captures does not use the index captures_user_list:\n%s", all)
	}
}
