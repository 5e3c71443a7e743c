package store_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

// analysedIn marks the capture processed in language with translated as
// its English.
func analysedIn(t *testing.T, s *store.Store, c *store.Capture, language, translated string) {
	t.Helper()
	ctx := context.Background()
	if got, err := s.ClaimCapture(ctx); err != nil || got.ID != c.ID {
		t.Fatalf("claim: %v %v, want %s", got, err, c.ID)
	}
	if err := s.CommitAnalysis(ctx, &store.Analysis{CaptureID: c.ID, UserID: c.UserID, Original: c.Original, Translated: translated, Language: language}); err != nil {
		t.Fatal(err)
	}
}

// TestSearchFindsWordFormsAsWritten: a word form finds another form of the
// same word in an entry written in Spanish or German, which neither the
// text's own words nor its English translation hold, and the snippet marks
// the form written.
func TestSearchFindsWordFormsAsWritten(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := storetest.MustOpen(t)
	ana := storetest.MustCreateUser(t, s, "ana@example.com")
	spanish := mustCapture(t, s, ana.ID, "Hoy me salté el almuerzo otra vez.")
	analysedIn(t, s, spanish, "es", "Today I missed lunch once more.")
	german := mustCapture(t, s, ana.ID, "Die Kinder waren müde, ich auch.")
	analysedIn(t, s, german, "de", "The children were exhausted, me too.")
	english := mustCapture(t, s, ana.ID, "Kind words at the saltworks.")
	analysedIn(t, s, english, "en", "Kind words at the saltworks.")
	for _, c := range []struct{ q, want, mark string }{
		{"saltando", spanish.Original, "\x02salté\x03"},
		{"almuerzos", spanish.Original, "\x02almuerzo\x03"},
		{"saltar almuerzo", spanish.Original, "\x02salté\x03"},
		{"müder", german.Original, "\x02müde\x03"},
		{"Kindern", german.Original, "\x02Kinder\x03"},
	} {
		got, n, err := s.SearchCaptures(ctx, ana.ID, c.q, store.Page{Page: 1, Limit: 10})
		if err != nil || n != 1 || got[0].Original != c.want {
			t.Errorf("search %q = %d (%s), %v; want %q alone", c.q, n, ids(got), err, c.want)
			continue
		}
		if !strings.Contains(got[0].Snippet, c.mark) {
			t.Errorf("search %q: snippet %q does not mark %q", c.q, got[0].Snippet, c.mark)
		}
	}
	// Another journal's languages do not stem this one's search.
	ben := storetest.MustCreateUser(t, s, "ben@example.com")
	mine := mustCapture(t, s, ben.ID, "Kind words at the saltworks.")
	analysedIn(t, s, mine, "en", "Kind words at the saltworks.")
	if got, n, err := s.SearchCaptures(ctx, ben.ID, "Kindern", store.Page{Page: 1, Limit: 10}); err != nil || n != 0 {
		t.Errorf("an English journal's search for Kindern = %d (%s), %v; want none", n, ids(got), err)
	}
}

// An entry analysed before the index held stems is cut when the store
// migrates, and found by its word forms from then on.
func TestMigrateCutsStemsOfEarlierEntries(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "recur.db")
	s := storetest.MustOpenAt(t, path, nil)
	ana := storetest.MustCreateUser(t, s, "ana@example.com")
	c := mustCapture(t, s, ana.ID, "Hoy me salté el almuerzo.")
	analysedIn(t, s, c, "es", "Today I missed lunch.")
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `UPDATE captures SET stems = NULL`); err != nil {
		t.Fatal(err)
	}
	if _, n, err := s.SearchCaptures(ctx, ana.ID, "saltando", store.Page{Page: 1, Limit: 10}); err != nil || n != 0 {
		t.Fatalf("before migrating, saltando found %d, %v; want none, the stems not cut yet", n, err)
	}
	if _, err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if got, n, err := s.SearchCaptures(ctx, ana.ID, "saltando", store.Page{Page: 1, Limit: 10}); err != nil || n != 1 {
		t.Errorf("after migrating, saltando found %d (%s), %v; want the entry", n, ids(got), err)
	}
}

// Which stemmed languages a journal holds is a look-up per language in a
// small index, never a walk through the user's captures.
func TestJournalLanguagesUseIndex(t *testing.T) {
	t.Parallel()
	s := storetest.MustOpen(t)
	u := storetest.MustCreateUser(t, s, "plan@example.com")
	plan, err := s.LanguagesPlan(context.Background(), u.ID)
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(plan, "\n")
	if !strings.Contains(all, "INDEX captures_stemmed (user_id=? AND language=?)") {
		t.Errorf("the look-up does not use the index captures_stemmed:\n%s", all)
	}
}
