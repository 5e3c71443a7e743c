package store_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

// filterJournal gives a user the journal of MustAnalysedJournal (three
// days in March 2025 with the pattern "Work", anxious, with Sam) and two
// entries after it: a calm one at the office with Ana, and a tired one at
// home with Sam. It returns the user and the pattern's id.
func filterJournal(t *testing.T, s *store.Store, email string) (*store.User, string) {
	t.Helper()
	u := storetest.MustAnalysedJournal(t, s, email)
	day := time.Date(2025, 3, 10, 8, 0, 0, 0, time.UTC)
	storetest.MustWriteAnalysed(t, s, u.ID, day,
		store.NewTag{Type: store.TagPositiveFeeling, Name: "calm", FeelingID: "calm"},
		store.NewTag{Type: store.TagLocation, Name: "Office"}, store.NewTag{Type: store.TagPerson, Name: "Ana"})
	storetest.MustWriteAnalysed(t, s, u.ID, day.AddDate(0, 0, 1),
		store.NewTag{Type: store.TagNegativeFeeling, Name: "tired", FeelingID: "tired"},
		store.NewTag{Type: store.TagLocation, Name: "home"}, store.NewTag{Type: store.TagPerson, Name: "Sam"})
	list, _, err := s.ListPatterns(context.Background(), u.ID, store.Page{Page: 1, Limit: 10})
	if err != nil || len(list) != 1 {
		t.Fatalf("patterns: %v, %v; want the one of the journal", list, err)
	}
	return u, list[0].ID
}

// dates lists the days of the captures found, as they come.
func dates(list []store.CaptureMatch) string {
	var out []string
	for _, c := range list {
		out = append(out, c.OccurredAt.Format("01-02"))
	}
	return strings.Join(out, " ")
}

func TestFindCapturesFilters(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := storetest.MustOpen(t)
	u, patternID := filterJournal(t, s, "ana@example.com")
	other, otherPattern := filterJournal(t, s, "ben@example.com")
	march := func(d int) time.Time { return time.Date(2025, 3, d, 0, 0, 0, 0, time.UTC) }
	for _, c := range []struct {
		name string
		f    store.CaptureFilter
		want string
	}{
		{"None", store.CaptureFilter{}, "03-11 03-10 03-05 03-04 03-03"},
		{"Feeling", store.CaptureFilter{Feelings: []string{"anxious"}}, "03-05 03-04 03-03"},
		{"FeelingAnyOf", store.CaptureFilter{Feelings: []string{" Calm", "tired", "calm"}}, "03-11 03-10"},
		{"Pattern", store.CaptureFilter{Patterns: []string{patternID}}, "03-05 03-04 03-03"},
		{"AnotherUsersPattern", store.CaptureFilter{Patterns: []string{otherPattern}}, ""},
		{"Person", store.CaptureFilter{Persons: []string{"sam"}}, "03-11 03-05 03-04 03-03"},
		{"Place", store.CaptureFilter{Places: []string{"OFFICE", "nowhere"}}, "03-10"},
		{"PersonAndFeeling", store.CaptureFilter{Persons: []string{"Sam"}, Feelings: []string{"tired"}}, "03-11"},
		{"Dates", store.CaptureFilter{From: march(4), To: march(11)}, "03-10 03-05 03-04"},
		{"DatesAndPerson", store.CaptureFilter{From: march(4), Persons: []string{"Sam"}}, "03-11 03-05 03-04"},
		{"Words", store.CaptureFilter{Query: "deadline", To: march(4)}, "03-03"},
		{"WordsAndPattern", store.CaptureFilter{Query: "entry", Patterns: []string{patternID}}, ""},
		{"WordsAndPerson", store.CaptureFilter{Query: "entry", Persons: []string{"Ana"}}, "03-10"},
	} {
		t.Run(c.name, func(t *testing.T) {
			list, total, err := s.FindCaptures(ctx, u.ID, c.f, store.Page{Page: 1, Limit: 10})
			if err != nil {
				t.Fatal(err)
			}
			if got := dates(list); got != c.want || total != len(list) {
				t.Errorf("found %q (%d in all), want %q", got, total, c.want)
			}
		})
	}
	if list, _, err := s.FindCaptures(ctx, other.ID, store.CaptureFilter{Patterns: []string{patternID}}, store.Page{Page: 1, Limit: 10}); err != nil || len(list) != 0 {
		t.Errorf("another user's pattern found %q, %v; want nothing", dates(list), err)
	}

	many := make([]string, store.FilterMaxValues+1)
	for i := range many {
		many[i] = strings.Repeat("x", i+1)
	}
	for _, c := range []struct {
		name, field string
		f           store.CaptureFilter
	}{
		{"ErrUnknownFeeling", "feeling", store.CaptureFilter{Feelings: []string{"hangry"}}},
		{"ErrUnknownFeelingInSearch", "feeling", store.CaptureFilter{Query: "deadline", Feelings: []string{"hangry"}}},
		{"ErrTooManyPersons", "person", store.CaptureFilter{Persons: many}},
		{"ErrPatternNotID", "pattern", store.CaptureFilter{Patterns: []string{"work"}}},
		{"ErrPlaceTooLong", "place", store.CaptureFilter{Places: []string{strings.Repeat("a", 101)}}},
		{"ErrToBeforeFrom", "to", store.CaptureFilter{From: march(5), To: march(4)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := s.FindCaptures(ctx, u.ID, c.f, store.Page{Page: 1, Limit: 10})
			var e *store.Error
			if store.ErrorCode(err) != store.EINVALID || !asError(err, &e) || e.Field != c.field {
				t.Errorf("err = %v, want EINVALID naming %s", err, c.field)
			}
		})
	}
}

// A filter reads the tags it names by index and the captures they were
// found in, and never walks the whole of the tags, the segments, the links
// between them or the user's captures; a search reads the index of words
// first.
func TestFilterPlansUseIndexes(t *testing.T) {
	t.Parallel()
	s := storetest.MustOpen(t)
	u := storetest.MustCreateUser(t, s, "plan@example.com")
	f := store.CaptureFilter{Feelings: []string{"anxious"}, Patterns: []string{"0196a7e4-0000-7000-8000-000000000000"},
		Persons: []string{"Sam"}, Places: []string{"home"}, From: time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)}
	list, search, err := s.FilterPlans(context.Background(), u.ID, f)
	if err != nil {
		t.Fatal(err)
	}
	for name, plan := range map[string][]string{"list": list, "search": search} {
		all := strings.Join(plan, "\n")
		t.Logf("%s plan:\n%s", name, all)
		for _, table := range []string{"tags", "segment_tags", "segments", "patterns", "captures", "c", "t", "st", "sg", "p"} {
			if slices.ContainsFunc(plan, func(step string) bool {
				return strings.Contains(step, " SCAN "+table+" ") || strings.HasSuffix(step, " SCAN "+table)
			}) {
				t.Errorf("the %s walks the whole of %s:\n%s", name, table, all)
			}
		}
	}
	if all := strings.Join(list, "\n"); !strings.Contains(all, "INDEX tags_feeling (user_id=? AND feeling_id=?)") {
		t.Errorf("the list does not read the tags of the feelings through tags_feeling:\n%s", all)
	}
	if all := strings.Join(list, "\n"); strings.Contains(all, "captures_user_list") || !strings.Contains(all, "SEARCH c USING INDEX sqlite_autoindex_captures_1 (id=?)") {
		t.Errorf("the list walks the user's captures rather than reading those the tags were found in:\n%s", all)
	}
	if all := strings.Join(search, "\n"); !strings.Contains(all, "VIRTUAL TABLE INDEX") || !strings.Contains(all, "SEARCH c USING INTEGER PRIMARY KEY (rowid=?)") ||
		strings.Index(all, "captures_search") > strings.Index(all, "SEARCH c ") {
		t.Errorf("the search does not read the index of words first and each capture it finds by rowid:\n%s", all)
	}
}
