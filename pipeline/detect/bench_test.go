package detect_test

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recur-journal/recur/pipeline/detect"
	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

// tenYears makes a journal of a capture a day for ten years, four or five
// segments each (about 15,000), with triggers, behaviours, feelings and
// persons, locations and activities drawn from fixed pools.
func tenYears(seed uint64) []store.Analysis {
	r := rand.New(rand.NewPCG(seed, seed))
	feelings := []string{"anxious", "stressed", "calm", "proud", "sad", "tired", "content", "frustrated", "guilty", "grateful"}
	pick := func(prefix string, n int) string { return fmt.Sprintf("%s %d", prefix, r.IntN(n)) }
	var out []store.Analysis
	for d := range 3650 {
		a := store.Analysis{Translated: fmt.Sprintf("day %d", d)}
		for range 4 + d%2*(r.IntN(2)) + (d % 3 / 2) {
			tags := []store.NewTag{
				{Type: store.TagTrigger, Name: pick("trigger", 120), NewCategory: pick("trigger topic", 30)},
				{Type: store.TagBadBehaviour, Name: pick("bad", 60), NewCategory: pick("bad topic", 15)},
				{Type: store.TagGoodBehaviour, Name: pick("good", 60), NewCategory: pick("good topic", 15)},
				{Type: store.TagPerson, Name: pick("person", 25)},
				{Type: store.TagLocation, Name: pick("place", 12)},
				{Type: store.TagActivity, Name: pick("activity", 18)},
			}
			f := feelings[r.IntN(len(feelings))]
			typ := store.TagNegativeFeeling
			if f == "calm" || f == "proud" || f == "content" || f == "grateful" {
				typ = store.TagPositiveFeeling
			}
			tags = append(tags, store.NewTag{Type: typ, Name: f, FeelingID: f})
			a.Segments = append(a.Segments, store.AnalysedSegment{Start: 0, End: len(a.Translated), Tags: tags})
		}
		out = append(out, a)
	}
	return out
}

var start = time.Date(2016, 11, 1, 19, 0, 0, 0, time.UTC)

// loadTenYears stores the journal for one user.
func loadTenYears(b *testing.B) (*store.Store, *store.User, func() time.Time) {
	now := start.AddDate(0, 0, 3650)
	clock := func() time.Time { return now }
	s := storetest.MustOpenAt(b, filepath.Join(b.TempDir(), "ten.db"), clock)
	u := storetest.MustCreateUser(b, s, "decade@example.com")
	segments := 0
	for d, a := range tenYears(1) {
		writeAnalysed(b, s, u, a, start.AddDate(0, 0, d))
		segments += len(a.Segments)
	}
	b.Logf("%d captures, %d segments", 3650, segments)
	return s, u, clock
}

// writeAnalysed writes an entry at the moment given and commits its
// analysis, as the pipeline would.
func writeAnalysed(b *testing.B, s *store.Store, u *store.User, a store.Analysis, at time.Time) {
	ctx := context.Background()
	c := &store.Capture{UserID: u.ID, Original: a.Translated, OccurredAt: at}
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
}

// BenchmarkRun is detection alone: the counting over ten years of facts
// already in memory.
func BenchmarkRun(b *testing.B) {
	s, u, clock := loadTenYears(b)
	facts, err := s.DetectionFacts(context.Background(), u.ID)
	if err != nil {
		b.Fatal(err)
	}
	in := detect.InputFrom(facts, clock(), time.UTC)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if len(detect.Run(in)) == 0 {
			b.Fatal("no patterns")
		}
	}
}

// BenchmarkDetect is a whole detection run as the pipeline makes it the
// first time after a start: load ten years of facts from SQLite, count, and
// save the result. (A Detector that ran before reads only what changed
// since: BenchmarkDetectAfterEntry.)
func BenchmarkDetect(b *testing.B) {
	s, u, clock := loadTenYears(b)
	ctx := context.Background()
	if err := detect.NewDetector(s, clock).Detect(ctx, u.ID); err != nil { // the first run creates the patterns
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := detect.NewDetector(s, clock).Detect(ctx, u.ID); err != nil {
			b.Fatal(err)
		}
	}
}

// analysedTenYears is the ten-year journal with its patterns detected.
func analysedTenYears(b *testing.B) (*store.Store, *store.User) {
	s, u, clock := loadTenYears(b)
	if err := detect.NewDetector(s, clock).Detect(context.Background(), u.ID); err != nil {
		b.Fatal(err)
	}
	return s, u
}

// BenchmarkExport writes the whole ten-year journal as the export
// document, to a writer that keeps nothing, and reports its size and the
// peak memory it took.
func BenchmarkExport(b *testing.B) {
	s, u := analysedTenYears(b)
	var size int64
	b.ReportAllocs()
	peak := startPeakMemory()
	for b.Loop() {
		var w countWriter
		if err := s.Export(context.Background(), u.ID, &w); err != nil {
			b.Fatal(err)
		}
		size = int64(w)
	}
	peak.report(b)
	b.ReportMetric(float64(size)/(1<<20), "MiB")
}

// BenchmarkRestore brings the ten-year export, read from a file as an
// import reads it, back into a new account of the same instance, so every
// record gets a new id, and reports the peak memory it took.
func BenchmarkRestore(b *testing.B) {
	s, u := analysedTenYears(b)
	name := filepath.Join(b.TempDir(), "export.json")
	f, err := os.Create(name)
	if err != nil {
		b.Fatal(err)
	}
	if err := s.Export(context.Background(), u.ID, f); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	open := func() (io.ReadCloser, error) { return os.Open(name) }
	b.ReportAllocs()
	n := 0
	peak := startPeakMemory()
	for b.Loop() {
		n++
		v := storetest.MustCreateUser(b, s, fmt.Sprintf("restore%d@example.com", n))
		res, err := s.Restore(context.Background(), v.ID, "restore", open)
		if err != nil || res.Imported != 3650 {
			b.Fatalf("restored %+v, %v", res, err)
		}
	}
	peak.report(b)
}

// BenchmarkImport imports ten years of daily entries of about a thousand
// characters, as a Day One journal would bring, into a new account.
func BenchmarkImport(b *testing.B) {
	s := storetest.MustOpen(b)
	entries := make([]store.ImportEntry, 3650)
	for d := range entries {
		entries[d] = store.ImportEntry{OccurredAt: start.AddDate(0, 0, d), Source: fmt.Sprint("entry ", d+1),
			Text: strings.Repeat(fmt.Sprintf("Day %d of the journal, and what happened in it. ", d), 20)}
	}
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		n++
		u := storetest.MustCreateUser(b, s, fmt.Sprintf("import%d@example.com", n))
		res, err := s.ImportCaptures(context.Background(), u.ID, "import", entries)
		if err != nil || res.Imported != len(entries) {
			b.Fatalf("imported %+v, %v", res, err)
		}
	}
}

type countWriter int64

func (w *countWriter) Write(p []byte) (int, error) { *w += countWriter(len(p)); return len(p), nil }
