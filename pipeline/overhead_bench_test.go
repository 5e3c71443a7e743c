//go:build unix

package pipeline_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/recur-journal/recur/pipeline"
	"github.com/recur-journal/recur/pipeline/detect"
	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

// overheadSizes are the journals BenchmarkAnalysedEntry analyses entries
// in: empty, a year or so, and ten years of writing several times a day.
var overheadSizes = []int{0, 1000, 25000}

// BenchmarkAnalysedEntry is Recur's own work around each analysed entry:
// the shipped journal's 28 entries are posted at once into a journal of 0,
// 1,000 and 25,000 analysed entries (its patterns detected, its names
// embedded) and analysed in the benchmark's goroutine against the scripted
// fake Ollama, which answers at once, detection and descriptions included,
// until the queue is dry. It reports entries analysed a second and the
// process's CPU time (user and system) per entry; the fake runs in the same
// process, so its own work (a constant share, the same for every size) is
// in the figure. Each round starts from a copy of the journal, in which
// one entry is analysed, detection included, before the entries come, as
// in a server that has been running: the pipeline and the detector keep
// what they read of the journal.
//
// The import rounds bring 250 and then 1,000 entries (the shipped ones again,
// a day apart going back) into the 25,000-entry journal, as recur import
// does, and analyse them: their time per entry stays the same when the
// import is four times larger, so an import takes time in proportion to its
// entries and not to the journal it joins.
func BenchmarkAnalysedEntry(b *testing.B) {
	entries := loadCorpus(b)
	_, model := scriptedModel(b)
	// RECUR_BENCH_JOURNALS names a folder that keeps the journals between
	// runs (journal25000.db takes a few minutes to write); a journal found
	// there is taken as it is, so empty it after changing how they are
	// written.
	dir := os.Getenv("RECUR_BENCH_JOURNALS")
	if dir == "" {
		dir = b.TempDir()
	}
	post := func(b *testing.B, s *store.Store, u *store.User) int {
		for _, e := range entries {
			if err := s.CreateCapture(context.Background(), &store.Capture{UserID: u.ID, Original: e.Text, OccurredAt: e.OccurredAt}); err != nil {
				b.Fatal(err)
			}
		}
		return len(entries)
	}
	imports := func(n int) func(b *testing.B, s *store.Store, u *store.User) int {
		return func(b *testing.B, s *store.Store, u *store.User) int {
			list := make([]store.ImportEntry, n)
			for i := range list {
				e := entries[i%len(entries)]
				list[i] = store.ImportEntry{OccurredAt: e.OccurredAt.AddDate(0, 0, -i/len(entries)), Text: e.Text, Source: fmt.Sprint("entry ", i+1)}
			}
			if res, err := s.ImportCaptures(context.Background(), u.ID, "bench", list); err != nil || res.Imported != n {
				b.Fatalf("imported %+v, %v", res, err)
			}
			return n
		}
	}
	for _, n := range overheadSizes {
		template := ""
		round := func(name string, queue func(*testing.B, *store.Store, *store.User) int) {
			b.Run(name, func(b *testing.B) {
				if template == "" {
					template = filepath.Join(dir, fmt.Sprintf("journal%d.db", n))
					if _, err := os.Stat(template); err != nil {
						if err := os.Rename(overheadJournal(b, model, n, template+".part"), template); err != nil {
							b.Fatal(err)
						}
					}
				}
				benchmarkAnalysed(b, model, template, name, queue)
			})
		}
		round(fmt.Sprintf("journal=%d", n), post)
		if n == overheadSizes[len(overheadSizes)-1] {
			round(fmt.Sprintf("journal=%d/import=250", n), imports(250))
			round(fmt.Sprintf("journal=%d/import=1000", n), imports(1000))
		}
	}
}

// benchmarkAnalysed runs the rounds of BenchmarkAnalysedEntry: queue puts
// entries in the queue of a copy of the journal in template and says how
// many, and they are analysed.
func benchmarkAnalysed(b *testing.B, model pipeline.Model, template, name string, queue func(*testing.B, *store.Store, *store.User) int) {
	var cpu, wall time.Duration
	analysed := 0
	b.ResetTimer()
	for round := range b.N {
		b.StopTimer()
		s, u := copyJournal(b, template)
		// The server has analysed an entry of the writer's before, and run
		// detection over the journal for it, as one that has been running
		// has: its pipeline and detector keep what they read of the
		// journal.
		det := detect.NewDetector(s, overheadClock)
		p := pipeline.New(pipeline.Options{Store: s, Model: model, ModelName: "qwen2.5:7b", Logger: discard(), Detector: det})
		warm := &store.Capture{UserID: u.ID, Original: "Lunch with Anna Berg at the old cafe.", OccurredAt: journalEnd.AddDate(0, 0, -29)}
		if err := s.CreateCapture(context.Background(), warm); err != nil {
			b.Fatal(err)
		}
		drain(b, p)
		n := queue(b, s, u)
		stop := profileFrom(b, fmt.Sprint(strings.NewReplacer("=", "", "/", "-").Replace(name), "-", round))
		b.StartTimer()
		start, used := time.Now(), cpuTime(b)
		drain(b, p)
		cpu += cpuTime(b) - used
		wall += time.Since(start)
		b.StopTimer()
		stop()
		if q, _ := s.QueueCounts(context.Background()); q.Queued+q.Failed+q.Processing != 0 {
			b.Fatalf("queue after the entries: %+v", q)
		}
		analysed += n
		s.Close()
	}
	b.ReportMetric(float64(analysed)/wall.Seconds(), "entries/s")
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(analysed), "cpu_ms/entry")
}

// overheadClock is the time of the overhead benchmarks: the morning after
// the shipped journal's last entry.
func overheadClock() time.Time { return journalEnd }

// overheadJournal writes a journal of n analysed entries over the ten
// years before the shipped journal, detects its patterns and has its names
// embedded (by analysing one entry), in the file at path, which it returns.
func overheadJournal(b *testing.B, model pipeline.Model, n int, path string) string {
	s := storetest.MustOpenAt(b, path, overheadClock)
	u := storetest.MustCreateUser(b, s, "writer@example.com")
	ctx := context.Background()
	if n > 0 {
		start := journalEnd.AddDate(-10, 0, -30)
		loadJournal(b, s, u.ID, n, start, time.Duration(int64(journalEnd.AddDate(0, 0, -30).Sub(start))/int64(n)))
		if err := detect.NewDetector(s, overheadClock).Detect(ctx, u.ID); err != nil {
			b.Fatal(err)
		}
		c := &store.Capture{UserID: u.ID, Original: "Lunch with Anna Berg at the old cafe.", OccurredAt: journalEnd.AddDate(0, 0, -30)}
		if err := s.CreateCapture(ctx, c); err != nil {
			b.Fatal(err)
		}
		drain(b, pipeline.New(pipeline.Options{Store: s, Model: model, ModelName: "qwen2.5:7b", Logger: discard(),
			Detector: detect.NewDetector(s, overheadClock)}))
	}
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	return path
}

// copyJournal opens a copy of the journal in template, and returns it with
// its user.
func copyJournal(b *testing.B, template string) (*store.Store, *store.User) {
	path := filepath.Join(b.TempDir(), "copy.db")
	in, err := os.Open(template)
	if err != nil {
		b.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		b.Fatal(err)
	}
	if err := out.Close(); err != nil {
		b.Fatal(err)
	}
	s := storetest.MustOpenAt(b, path, overheadClock)
	u, err := s.FindUserByEmail(context.Background(), "writer@example.com")
	if err != nil {
		b.Fatal(err)
	}
	return s, u
}

// profileFrom profiles, when RECUR_BENCH_PROFILE names a folder, the
// process's CPU and allocations until the function it returns is called,
// into NAME.cpu.pprof and NAME.allocs.pprof there (the allocations as the
// difference from NAME.allocs-base.pprof: go tool pprof -base). Setting a
// journal up is left out, which -cpuprofile and -memprofile would not.
// BenchmarkAnalysedEntry names each round's files apart (journal25000-0,
// journal25000-1, ...); go tool pprof adds up the files it is given.
func profileFrom(b *testing.B, name string) (stop func()) {
	dir := os.Getenv("RECUR_BENCH_PROFILE")
	if dir == "" {
		return func() {}
	}
	write := func(file string, fn func(io.Writer) error) {
		f, err := os.Create(filepath.Join(dir, name+file))
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		if err := fn(f); err != nil {
			b.Fatal(err)
		}
	}
	allocs := func(w io.Writer) error { runtime.GC(); return pprof.Lookup("allocs").WriteTo(w, 0) }
	write(".allocs-base.pprof", allocs)
	f, err := os.Create(filepath.Join(dir, name+".cpu.pprof"))
	if err != nil {
		b.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		b.Fatal(err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
		write(".allocs.pprof", allocs)
	}
}

// cpuTime is the CPU time the process has used so far, user and system.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
