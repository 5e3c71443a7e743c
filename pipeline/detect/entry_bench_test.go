package detect_test

import (
	"context"
	"testing"
	"time"

	"github.com/recur-journal/recur/pipeline/detect"
)

// BenchmarkDetectAfterEntry is the run that follows a new entry in a
// ten-year journal: four or five more situations today, read (the Detector
// keeps the rest from its last run), counted and saved. The entry itself
// is written outside the timer.
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
		writeAnalysed(b, s, u, more[i%len(more)], clock().Add(-time.Duration(i+1)*time.Second))
		b.StartTimer()
		if err := d.Detect(ctx, u.ID); err != nil {
			b.Fatal(err)
		}
	}
}
