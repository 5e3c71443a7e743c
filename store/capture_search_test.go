package store_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

// processed gives c a translation, as a run would.
func processed(t *testing.T, s *store.Store, c *store.Capture, translated string) {
	t.Helper()
	ctx := context.Background()
	if got, err := s.ClaimCapture(ctx); err != nil || got.ID != c.ID {
		t.Fatalf("claim: %v %v, want %s", got, err, c.ID)
	}
	if err := s.CommitAnalysis(ctx, &store.Analysis{CaptureID: c.ID, UserID: c.UserID, Original: c.Original, Translated: translated, Language: "de"}); err != nil {
		t.Fatal(err)
	}
}

func ids(list []store.CaptureMatch) string {
	var out []string
	for _, m := range list {
		out = append(out, m.Original)
	}
	return strings.Join(out, " | ")
}

func TestSearchCaptures(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := storetest.MustOpen(t)
	ana := storetest.MustCreateUser(t, s, "ana@example.com")
	ben := storetest.MustCreateUser(t, s, "ben@example.com")
	german := mustCapture(t, s, ana.ID, "Mein Chef hat geschrien.")
	processed(t, s, german, "My boss shouted.")
	mustCapture(t, s, ana.ID, "Lunch with Lea, then the boss again: boss, boss, boss.")
	mustCapture(t, s, ana.ID, "A quiet walk in the café garden.")
	mustCapture(t, s, ben.ID, "My boss is on holiday.")
	page := store.Page{Page: 1, Limit: 15}
	search := func(t *testing.T, q string) ([]store.CaptureMatch, int) {
		t.Helper()
		list, total, err := s.SearchCaptures(ctx, ana.ID, q, page)
		if err != nil {
			t.Fatalf("search %q: %v", q, err)
		}
		return list, total
	}

	t.Run("TranslatedTextAndRanking", func(t *testing.T) {
		list, total := search(t, "boss")
		if total != 2 || len(list) != 2 {
			t.Fatalf("found %d (%s), want ana's two", total, ids(list))
		}
		if !strings.HasPrefix(list[0].Original, "Lunch") {
			t.Errorf("ranked %s; the entry saying boss four times should come first", ids(list))
		}
		if got := list[1].Snippet; !strings.Contains(got, store.SnippetOpen+"boss"+store.SnippetClose) {
			t.Errorf("snippet %q does not mark boss in the translation", got)
		}
	})
	t.Run("OriginalText", func(t *testing.T) {
		if list, _ := search(t, "Chef"); len(list) != 1 || list[0].ID != german.ID {
			t.Fatalf("found %s, want the German entry", ids(list))
		}
	})
	t.Run("EveryWordPrefixLast", func(t *testing.T) {
		if list, _ := search(t, "lunch bo"); len(list) != 1 || !strings.HasPrefix(list[0].Original, "Lunch") {
			t.Fatalf("found %s, want the lunch entry only", ids(list))
		}
	})
	t.Run("Diacritics", func(t *testing.T) {
		if list, _ := search(t, "cafe"); len(list) != 1 {
			t.Fatalf("cafe found %s, want the café entry", ids(list))
		}
	})
	t.Run("OtherUserNeverMatches", func(t *testing.T) {
		for _, m := range mustSearch(t, s, ana.ID, "holiday") {
			t.Fatalf("ana found ben's %q", m.Original)
		}
	})
	t.Run("SyntaxIsText", func(t *testing.T) {
		for _, q := range []string{`boss"`, `"boss`, `boss OR lea`, `NOT boss`, `boss*`, `original:boss`, `(boss`, `boss AND`, `^boss`, `NEAR(boss lea)`, `-boss`, `b"o"ss`} {
			if _, _, err := s.SearchCaptures(ctx, ana.ID, q, page); err != nil {
				t.Errorf("search %q: %v", q, err)
			}
		}
		if list, _ := search(t, "boss OR holiday"); len(list) != 0 {
			t.Errorf("OR acted as an operator: found %s", ids(list))
		}
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		for _, q := range []string{"", "  ", "!!! ?", strings.Repeat("a", store.SearchMaxLength+1), "\xff"} {
			_, _, err := s.SearchCaptures(ctx, ana.ID, q, page)
			var e *store.Error
			if !asError(err, &e) || e.Code != store.EINVALID || e.Field != "q" {
				t.Errorf("search %q: %v, want EINVALID on q", q, err)
			}
		}
	})
	t.Run("FollowsChanges", func(t *testing.T) {
		text := "Rain all day."
		if _, _, err := s.UpdateCapture(ctx, ana.ID, german.ID, store.CaptureUpdate{Text: &text}); err != nil {
			t.Fatal(err)
		}
		if list, _ := search(t, "Chef"); len(list) != 0 {
			t.Errorf("the old text is still found: %s", ids(list))
		}
		if list, _ := search(t, "rain"); len(list) != 1 {
			t.Errorf("the new text is not found: %s", ids(list))
		}
		if err := s.DeleteCapture(ctx, ana.ID, german.ID); err != nil {
			t.Fatal(err)
		}
		if list, _ := search(t, "rain"); len(list) != 0 {
			t.Errorf("a deleted capture is found: %s", ids(list))
		}
	})
}

func mustSearch(t *testing.T, s *store.Store, userID, q string) []store.CaptureMatch {
	t.Helper()
	list, _, err := s.SearchCaptures(context.Background(), userID, q, store.Page{Page: 1, Limit: 15})
	if err != nil {
		t.Fatal(err)
	}
	return list
}

// Captures written before the search index existed are found once the
// migration has run.
func TestSearchMigrationIndexesExisting(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "recur.db")
	s, db := openBefore(t, path, 10)
	ana := storetest.MustCreateUser(t, s, "ana@example.com")
	now := store.FormatTime(s.Now())
	if _, err := db.ExecContext(ctx, `INSERT INTO captures (id, user_id, original, occurred_at, available_at, created_at, updated_at)
		VALUES ('c1', ?, 'Written long before search.', ?, ?, ?, ?)`, ana.ID, now, now, now, now); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if list := mustSearch(t, s, ana.ID, "before"); len(list) != 1 || list[0].ID != "c1" {
		t.Fatalf("found %s, want the capture written before the migration", ids(list))
	}
}

func TestUpdateCapture(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := storetest.MustOpen(t)
	ana := storetest.MustCreateUser(t, s, "ana@example.com")
	ben := storetest.MustCreateUser(t, s, "ben@example.com")
	c := mustCapture(t, s, ana.ID, "First text.")
	processed(t, s, c, "First text.")
	text, same := "Second text.", "First text."

	t.Run("ErrNotFound", func(t *testing.T) {
		if _, _, err := s.UpdateCapture(ctx, ben.ID, c.ID, store.CaptureUpdate{Text: &text}); store.ErrorCode(err) != store.ENOTFOUND {
			t.Fatalf("ben updating ana's capture: %v, want ENOTFOUND", err)
		}
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		blank, future := " ", s.Now().Add(49*time.Hour)
		for field, u := range map[string]store.CaptureUpdate{"text": {Text: &blank}, "occurred_at": {OccurredAt: &future}} {
			_, _, err := s.UpdateCapture(ctx, ana.ID, c.ID, u)
			var e *store.Error
			if !asError(err, &e) || e.Code != store.EINVALID || e.Field != field {
				t.Errorf("bad %s: %v, want EINVALID on it", field, err)
			}
		}
	})
	t.Run("SameChangesNothing", func(t *testing.T) {
		got, ch, err := s.UpdateCapture(ctx, ana.ID, c.ID, store.CaptureUpdate{Text: &same, OccurredAt: &c.OccurredAt})
		if err != nil || ch.Text || ch.OccurredAt || got.Status != store.StatusProcessed {
			t.Fatalf("same text and time: %+v %v %v, want nothing changed", ch, got.Status, err)
		}
	})
	t.Run("MovedKeepsStatus", func(t *testing.T) {
		earlier := c.OccurredAt.Add(-48 * time.Hour)
		got, ch, err := s.UpdateCapture(ctx, ana.ID, c.ID, store.CaptureUpdate{OccurredAt: &earlier})
		if err != nil || ch.Text || !ch.OccurredAt || got.Status != store.StatusProcessed || !got.OccurredAt.Equal(earlier) {
			t.Fatalf("moved: %+v %v %v %v", ch, got.Status, got.OccurredAt, err)
		}
	})
	t.Run("TextRequeuesKeepingAnalysis", func(t *testing.T) {
		got, ch, err := s.UpdateCapture(ctx, ana.ID, c.ID, store.CaptureUpdate{Text: &text})
		if err != nil || !ch.Text || got.Status != store.StatusQueued {
			t.Fatalf("new text: %+v %v %v, want queued", ch, got.Status, err)
		}
		stored, err := s.FindCapture(ctx, ana.ID, c.ID)
		if err != nil {
			t.Fatal(err)
		}
		if stored.Original != text || stored.Translated != "First text." {
			t.Fatalf("stored %q translated %q: want the new text and the old analysis until a run commits", stored.Original, stored.Translated)
		}
	})
	t.Run("RunOfOldTextCommitsNothing", func(t *testing.T) {
		claimed, err := s.ClaimCapture(ctx)
		if err != nil {
			t.Fatal(err)
		}
		third := "Third text."
		if _, _, err := s.UpdateCapture(ctx, ana.ID, c.ID, store.CaptureUpdate{Text: &third}); err != nil {
			t.Fatal(err)
		}
		// Claimed again by another worker before the first run ends.
		if _, err := s.ClaimCapture(ctx); err != nil {
			t.Fatal(err)
		}
		err = s.CommitAnalysis(ctx, &store.Analysis{CaptureID: c.ID, UserID: ana.ID, Original: claimed.Original, Translated: claimed.Original, Language: "en"})
		if store.ErrorCode(err) != store.ENOTFOUND {
			t.Fatalf("commit of the text before the change: %v, want ENOTFOUND", err)
		}
		if err := s.CommitAnalysis(ctx, &store.Analysis{CaptureID: c.ID, UserID: ana.ID, Original: third, Translated: third, Language: "en"}); err != nil {
			t.Fatalf("commit of the current text: %v", err)
		}
	})
}
