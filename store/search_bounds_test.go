package store_test

import (
	"context"
	"strings"
	"testing"

	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

// A search's cost is bounded by its words: too many different words, or a
// control character (a NUL ends FTS5's reading of a word), are refused as
// EINVALID on q, never left to the database; a word said again counts once.
func TestSearchCapturesBounds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := storetest.MustOpen(t)
	ana := storetest.MustCreateUser(t, s, "ana@example.com")
	mustCapture(t, s, ana.ID, "A boss, a report, a lunch.")
	page := store.Page{Page: 1, Limit: 15}

	t.Run("ErrInvalid", func(t *testing.T) {
		tooMany := strings.Join(strings.Fields("one two three four five six seven eight nine"), " ")
		for _, q := range []string{tooMany, "bo\x00ss", "boss\x00", "boss\ttab\x01", "a\x7f"} {
			_, _, err := s.SearchCaptures(ctx, ana.ID, q, page)
			var e *store.Error
			if !asError(err, &e) || e.Code != store.EINVALID || e.Field != "q" || !strings.HasSuffix(e.Message, ".") {
				t.Errorf("search %q: %v, want EINVALID on q with a sentence", q, err)
			}
		}
	})
	t.Run("RepeatedWordsCountOnce", func(t *testing.T) {
		q := strings.TrimSpace(strings.Repeat("a ", 99))
		list, total, err := s.SearchCaptures(ctx, ana.ID, q, page)
		if err != nil || total != 1 || len(list) != 1 {
			t.Fatalf("99 times a: %d found, %v; want the one entry", total, err)
		}
		if list, _, err := s.SearchCaptures(ctx, ana.ID, "A a BOSS boss a lunch report", page); err != nil || len(list) != 1 {
			t.Fatalf("four different words, some twice: %d found, %v", len(list), err)
		}
	})
	t.Run("TabsSeparateWords", func(t *testing.T) {
		if list, _, err := s.SearchCaptures(ctx, ana.ID, "boss\tlunch", page); err != nil || len(list) != 1 {
			t.Fatalf("boss<tab>lunch: %d found, %v", len(list), err)
		}
	})
}
