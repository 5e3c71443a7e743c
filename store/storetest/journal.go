package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/recur-journal/recur/store"
)

// MustAnalysedJournal makes a user whose export holds a record of every
// kind: three analysed captures whose segments carry a trigger (category
// "Work"), a feeling, a bad behaviour (category "Doomscrolling") and a
// person, and a pattern on the trigger's category with a correlation and a
// flow. The behaviour's category has no pattern. No other capture may be
// waiting for analysis in s meanwhile.
func MustAnalysedJournal(tb testing.TB, s *store.Store, email string) *store.User {
	tb.Helper()
	ctx := context.Background()
	u := MustCreateUser(tb, s, email)
	day := time.Date(2025, 3, 3, 8, 0, 0, 0, time.UTC)
	for d := range 3 {
		text := fmt.Sprintf("Day %d: a deadline at work, anxious, scrolled all evening with Sam.", d+1)
		c := &store.Capture{UserID: u.ID, Original: text, OccurredAt: day.AddDate(0, 0, d)}
		if err := s.CreateCapture(ctx, c); err != nil {
			tb.Fatal(err)
		}
		if claimed, err := s.ClaimCapture(ctx); err != nil || claimed.ID != c.ID {
			tb.Fatalf("claimed %+v, %v; want the capture just written", claimed, err)
		}
		a := &store.Analysis{CaptureID: c.ID, UserID: u.ID, Translated: text, Language: "en",
			Segments: []store.AnalysedSegment{{Start: 0, End: len(text), Tags: []store.NewTag{
				{Type: store.TagTrigger, Name: "deadline", NewCategory: "Work"},
				{Type: store.TagNegativeFeeling, Name: "anxious", FeelingID: "anxious"},
				{Type: store.TagBadBehaviour, Name: "scrolling", NewCategory: "Doomscrolling"},
				{Type: store.TagPerson, Name: "Sam"},
			}}}}
		if err := s.CommitAnalysis(ctx, a); err != nil {
			tb.Fatal(err)
		}
	}
	doc := ReadExport(tb, MustExport(tb, s, u.ID))
	p := store.DetectedPattern{CategoryID: doc.IDWhere(tb, "categories", "kind", string(store.TagTrigger)), Sentiment: "negative", Impact: "high",
		Feelings: []string{"anxious"}, CapturesCount: 3, LastSeen: day.AddDate(0, 0, 2),
		Correlations: []store.DetectedCorrelation{{TagID: doc.IDWhere(tb, "tags", "type", string(store.TagPerson)), Amount: 3, Impact: "high"}},
		Flows:        []store.Flow{{SegmentID: doc.ID(tb, "segments", 0), Trigger: "deadline", Feeling: "anxious", Behaviour: "scrolling"}}}
	if err := s.SaveDetection(ctx, u.ID, []store.DetectedPattern{p}); err != nil {
		tb.Fatal(err)
	}
	for table, rows := range ReadExport(tb, MustExport(tb, s, u.ID)).Tables {
		if len(rows) == 0 && table != "settings" {
			tb.Fatalf("the journal's export has no %s", table)
		}
	}
	return u
}
