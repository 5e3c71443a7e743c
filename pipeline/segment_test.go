package pipeline_test

import (
	"testing"

	"github.com/recur-journal/recur/pipeline"
	"github.com/recur-journal/recur/pipeline/scripted"
	"github.com/recur-journal/recur/store"
)

// A day where nothing happened has no situations: the segment step's empty
// answer is a right one, the capture is processed with no segments, and
// no extract or categorise call is made for it.
func TestNothingHappened(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(o *pipeline.Options) { o.Workers = 0 })
	c := e.processed("Quiet day. Read a little and slept early.")
	if c.Status != store.StatusProcessed || len(c.Segments) != 0 {
		t.Fatalf("capture is %s with %d segments, want processed with none", c.Status, len(c.Segments))
	}
	steps := map[string]int{}
	for _, call := range e.fake.Calls() {
		if call.Request != nil {
			steps[scripted.Step(call.Request)]++
		}
	}
	if steps["segment"] != 1 || steps["extract"]+steps["categorise"] != 0 {
		t.Fatalf("calls by step %v, want one segment call and nothing after it", steps)
	}
}
