package pipeline_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/recur-journal/recur/internal/wait"
	"github.com/recur-journal/recur/pipeline"
	"github.com/recur-journal/recur/store"
)

// countingDetector counts detection runs, the most that ran at once, and
// the captures each run saw still queued; block, when set, holds the first
// run until it is closed.
type countingDetector struct {
	store *store.Store
	block chan struct{}

	mu                 sync.Mutex
	runs, running, max int
	saw                []int
}

func (d *countingDetector) Detect(ctx context.Context, _ string) error {
	d.mu.Lock()
	d.runs++
	d.running++
	d.max = max(d.max, d.running)
	first := d.runs == 1
	d.mu.Unlock()
	if first && d.block != nil {
		<-d.block
	}
	q, err := d.store.QueueCounts(ctx)
	d.mu.Lock()
	d.running--
	d.saw = append(d.saw, q.Queued)
	d.mu.Unlock()
	return err
}

func (d *countingDetector) state() (runs, most int, saw []int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.runs, d.max, append([]int(nil), d.saw...)
}

func TestBacklogIsDetectedOnceItsEntriesAreAnalysed(t *testing.T) {
	var det *countingDetector
	e := newEnv(t, func(o *pipeline.Options) {
		det = &countingDetector{store: o.Store}
		o.Detector = det
	})
	for i := range 5 {
		e.capture(fmt.Sprintf("My boss criticised my report on day %d and I skipped lunch.", i))
	}
	drain(t, e.pipe)
	if runs, _, saw := det.state(); runs != 1 || saw[0] != 0 {
		t.Fatalf("detection ran %d times, seeing %v entries queued; want once, after all 5", runs, saw)
	}
	e.capture("My boss criticised my report again.")
	drain(t, e.pipe)
	if runs, _, saw := det.state(); runs != 2 || saw[1] != 0 {
		t.Fatalf("an entry alone: detection ran %d times in all, seeing %v queued; want a second run, after it", runs, saw)
	}
}

func TestLongBacklogIsDetectedEveryHundredEntries(t *testing.T) {
	if testing.Short() {
		t.Skip("analyses over a hundred entries")
	}
	var det *countingDetector
	e := newEnv(t, func(o *pipeline.Options) {
		det = &countingDetector{store: o.Store}
		o.Detector = det
	})
	for i := range pipeline.DefaultDetectEvery + 5 {
		e.capture(fmt.Sprintf("Entry %d: I skipped lunch.", i))
	}
	drain(t, e.pipe)
	if runs, _, saw := det.state(); runs != 2 || saw[0] != 5 || saw[1] != 0 {
		t.Fatalf("detection ran %d times, seeing %v entries queued; want after %d (5 queued) and after all %d",
			runs, saw, pipeline.DefaultDetectEvery, pipeline.DefaultDetectEvery+5)
	}
}

func TestOneUsersDetectionNeverRunsTwiceAtOnce(t *testing.T) {
	det := &countingDetector{block: make(chan struct{})}
	e := newEnv(t, func(o *pipeline.Options) {
		det.store = o.Store
		o.Detector = det
	})
	e.start()
	e.waitStatus(e.capture("My boss criticised my report and I skipped lunch.").ID, store.StatusProcessed)
	wait.Eventually(t, 30*time.Second, "the first detection to start", func() bool { runs, _, _ := det.state(); return runs == 1 }, nil)
	// The other worker analyses the next entry while the first detection
	// runs: it asks for another run rather than running one beside it.
	e.waitStatus(e.capture("My boss criticised my report again.").ID, store.StatusProcessed)
	close(det.block)
	seen := func() string {
		runs, most, saw := det.state()
		return fmt.Sprintf("%d runs, %d at most at once, saw %v", runs, most, saw)
	}
	wait.Eventually(t, 30*time.Second, "a second detection after the first", func() bool { runs, _, _ := det.state(); return runs == 2 }, seen)
	if _, most, saw := det.state(); most != 1 || saw[1] != 0 {
		t.Fatalf("%s; want one at a time, the second after both entries", seen())
	}
}
