package pipeline_test

import (
	"slices"
	"testing"

	"github.com/recur-journal/recur/pipeline"
	"github.com/recur-journal/recur/pipeline/scripted"
	"github.com/recur-journal/recur/store"
)

// A day where nothing happened has no situations: the segment_extract
// step's empty answer is a right one, the capture is processed with no
// segments, and no categorise call is made for it.
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
	if steps["segment_extract"] != 1 || len(steps) != 1 {
		t.Fatalf("calls by step %v, want one segment_extract call and nothing after it", steps)
	}
}

// An entry of one word makes no model call: it cannot tell both what
// happened and how it felt. Two words are read.
func TestOneWordEntrySparesCalls(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, text string
		read       bool // whether the model is asked
		situations int
	}{
		{"OneWord", "Storm.", false, 0},
		{"NoWord", " … ", false, 0},
		{"TwoWords", "Skipped lunch.", true, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, func(o *pipeline.Options) { o.Workers = 0 })
			got := e.processed(c.text)
			var steps []string
			for _, call := range e.fake.Calls() {
				if call.Request != nil {
					steps = append(steps, scripted.Step(call.Request))
				}
			}
			if got.Status != store.StatusProcessed || len(got.Segments) != c.situations {
				t.Errorf("status %s with %d situations, want processed with %d", got.Status, len(got.Segments), c.situations)
			}
			if read := slices.ContainsFunc(steps, extracting); read != c.read || !c.read && len(steps) != 0 {
				t.Errorf("model steps %q; want the entry read: %v", steps, c.read)
			}
		})
	}
}
