package detect_test

import (
	"context"
	"testing"
	"time"

	"github.com/recur-journal/recur/pipeline/detect"
	"github.com/recur-journal/recur/store"
)

// BenchmarkDetectAfterEntry is the run that follows a new entry in a
// ten-year journal: four or five more situations today, counted and
// saved. The entry itself is written outside the timer.
func BenchmarkDetectAfterEntry(b *testing.B) {
	s, u, clock := loadTenYears(b)
	d := detect.NewDetector(s, clock)
	ctx := context.Background()
	if err := d.Detect(ctx, u.ID); err != nil {
		b.Fatal(err)
	}
	more := tenYears(3)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		a := more[i%len(more)]
		c := &store.Capture{UserID: u.ID, Original: a.Translated, OccurredAt: clock().Add(-time.Duration(i+1) * time.Second)}
		if err := s.CreateCapture(ctx, c); err != nil {
			b.Fatal(err)
		}
		if _, err := s.ClaimCapture(ctx); err != nil {
			b.Fatal(err)
		}
		a.CaptureID, a.UserID, a.Language = c.ID, u.ID, "en"
		if err := s.CommitAnalysis(ctx, &a); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if err := d.Detect(ctx, u.ID); err != nil {
			b.Fatal(err)
		}
	}
}
