package store_test

import (
	"context"
	"testing"

	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

// The names the extract step is offered come most used first, from uses
// kept as situations are written, analysed again, failed and deleted.
func TestTagsMostUsedFirst(t *testing.T) {
	ctx := context.Background()
	s := storetest.MustOpen(t)
	u := storetest.MustCreateUser(t, s, "ana@example.com")
	analyse := func(c *store.Capture, names ...string) {
		t.Helper()
		if _, err := s.ClaimCapture(ctx); err != nil {
			t.Fatal(err)
		}
		a := &store.Analysis{CaptureID: c.ID, UserID: u.ID, Translated: c.Original, Language: "en"}
		for _, n := range names {
			a.Segments = append(a.Segments, store.AnalysedSegment{Start: 0, End: len(c.Original), Tags: []store.NewTag{{Type: store.TagPerson, Name: n}}})
		}
		if err := s.CommitAnalysis(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	check := func(want ...string) {
		t.Helper()
		if wrong, err := s.WrongTagUses(ctx); err != nil || len(wrong) != 0 {
			t.Fatalf("uses kept wrong for %v (%v)", wrong, err)
		}
		tags, err := s.Tags(ctx, u.ID, store.TagPerson)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, tg := range tags {
			got = append(got, tg.Name)
		}
		if len(got) != len(want) {
			t.Fatalf("tags %v, want %v", got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("tags %v, want %v", got, want)
			}
		}
	}
	first := mustCapture(t, s, u.ID, "Lunch with Dana and Mika.")
	analyse(first, "Mika", "Dana", "Dana")
	check("Dana", "Mika")
	second := mustCapture(t, s, u.ID, "Mika again, and Priya.")
	analyse(second, "Mika", "Mika", "Priya")
	check("Mika", "Dana", "Priya")

	text := "Only Priya today."
	if _, _, err := s.UpdateCapture(ctx, u.ID, second.ID, store.CaptureUpdate{Text: &text}); err != nil {
		t.Fatal(err)
	}
	second.Original = text
	analyse(second, "Priya", "Priya", "Priya")
	check("Priya", "Dana", "Mika")

	third := mustCapture(t, s, u.ID, "Dana called.")
	if _, err := s.ClaimCapture(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.FailCapture(ctx, third.ID); err != nil {
		t.Fatal(err)
	}
	check("Priya", "Dana", "Mika")
	if err := s.DeleteCapture(ctx, u.ID, second.ID); err != nil {
		t.Fatal(err)
	}
	check("Dana", "Mika")
}

// The valence of a category's situations, which the categorise step offers
// categories by, is kept as situations are written, analysed again, failed
// and deleted, and stays what counting them says.
func TestCategoryValencesKept(t *testing.T) {
	ctx := context.Background()
	s := storetest.MustOpen(t)
	u := storetest.MustCreateUser(t, s, "ana@example.com")
	trigger := func(name, category string) store.NewTag {
		return store.NewTag{Type: store.TagTrigger, Name: name, NewCategory: category}
	}
	calm := store.NewTag{Type: store.TagPositiveFeeling, Name: "calm", FeelingID: "calm"}
	sad := store.NewTag{Type: store.TagNegativeFeeling, Name: "sad", FeelingID: "sad"}
	analyse := func(c *store.Capture, segments ...[]store.NewTag) {
		t.Helper()
		if _, err := s.ClaimCapture(ctx); err != nil {
			t.Fatal(err)
		}
		a := &store.Analysis{CaptureID: c.ID, UserID: u.ID, Translated: c.Original, Language: "en"}
		for _, tags := range segments {
			a.Segments = append(a.Segments, store.AnalysedSegment{Start: 0, End: len(c.Original), Tags: tags})
		}
		if err := s.CommitAnalysis(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	valences := func() map[string]int {
		t.Helper()
		if wrong, err := s.WrongCategoryValences(ctx); err != nil || len(wrong) != 0 {
			t.Fatalf("valences kept wrong for %v (%v)", wrong, err)
		}
		cats, err := s.Categories(ctx, u.ID, store.TagTrigger)
		if err != nil {
			t.Fatal(err)
		}
		ids := map[string]string{}
		var list []string
		for _, c := range cats {
			ids[c.ID] = c.Name
			list = append(list, c.ID)
		}
		v, err := s.CategoryValences(ctx, u.ID, list)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]int{}
		for id, n := range v {
			out[ids[id]] = n
		}
		return out
	}
	same := func(got, want map[string]int) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("valences %v, want %v", got, want)
		}
		for k, v := range want {
			if got[k] != v {
				t.Fatalf("valences %v, want %v", got, want)
			}
		}
	}
	first := mustCapture(t, s, u.ID, "The train was late and I was sad.")
	analyse(first, []store.NewTag{sad, trigger("late train", "travel"), trigger("crowded train", "travel")},
		[]store.NewTag{trigger("a walk", "walks"), calm})
	same(valences(), map[string]int{"travel": -1, "walks": 1})
	second := mustCapture(t, s, u.ID, "A calm train ride.")
	analyse(second, []store.NewTag{trigger("late train", "travel"), calm, sad})
	same(valences(), map[string]int{"walks": 1})

	text := "Only a walk, and sad."
	if _, _, err := s.UpdateCapture(ctx, u.ID, second.ID, store.CaptureUpdate{Text: &text}); err != nil {
		t.Fatal(err)
	}
	second.Original = text
	analyse(second, []store.NewTag{sad, trigger("a walk", "walks")})
	same(valences(), map[string]int{"travel": -1})
	if _, err := s.ClaimCapture(ctx); store.ErrorCode(err) != store.ENOTFOUND {
		t.Fatalf("claim on an empty queue: %v", err)
	}
	if err := s.DeleteCapture(ctx, u.ID, first.ID); err != nil {
		t.Fatal(err)
	}
	same(valences(), map[string]int{"walks": -1})
}
