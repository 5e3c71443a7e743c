package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/recur-journal/recur/store"
)

// MustWriteAnalysed gives the user a processed capture at when whose one
// segment holds the tags, and returns it. No other capture may be waiting
// for analysis in s meanwhile.
func MustWriteAnalysed(tb testing.TB, s *store.Store, userID string, when time.Time, tags ...store.NewTag) *store.Capture {
	tb.Helper()
	ctx := context.Background()
	c := &store.Capture{UserID: userID, Original: "An entry.", OccurredAt: when}
	if err := s.CreateCapture(ctx, c); err != nil {
		tb.Fatal(err)
	}
	if claimed, err := s.ClaimCapture(ctx); err != nil || claimed.ID != c.ID {
		tb.Fatalf("claimed %+v, %v; want the capture just written", claimed, err)
	}
	if err := s.CommitAnalysis(ctx, &store.Analysis{CaptureID: c.ID, UserID: userID, Translated: c.Original, Language: "en",
		Segments: []store.AnalysedSegment{{Start: 0, End: len(c.Original), Tags: tags}}}); err != nil {
		tb.Fatal(err)
	}
	return c
}
