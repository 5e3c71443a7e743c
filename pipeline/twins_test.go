package pipeline_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/recur-journal/recur/pipeline/fakeollama"
	"github.com/recur-journal/recur/store"
)

// A good time whose trigger and good behaviour tell the same event (choir
// rehearsal, sang in the choir) is told once: one good-behaviour pattern,
// no trigger pattern twinning it and no flow from the event to itself.
// A trigger that tells something else (a call from Dad) stays.
func TestTwinTriggerToldOnce(t *testing.T) {
	t.Parallel()
	e, now := detectingEnv(t)
	ctx := context.Background()
	e.answerWith(func(step string, req *api.ChatRequest) (fakeollama.Reply, bool) {
		lists := map[string][]string{"feelings": {"joyful", "proud"}, "triggers": {"choir rehearsal", "a call from Dad"},
			"good_behaviours": {"sang in the choir", "visited Dad"}, "persons": {"Dad"}, "activities": {"singing"}}
		return fakeollama.Reply{Content: extractReply(step, lists)}, extracting(step)
	})
	for d := 1; d <= 3; d++ {
		c := &store.Capture{UserID: e.user.ID, Original: "Choir rehearsal tonight, then Dad called. I felt calm and proud.", OccurredAt: now.AddDate(0, 0, -d)}
		if err := e.store.CreateCapture(ctx, c); err != nil {
			t.Fatal(err)
		}
		if _, err := e.pipe.ProcessNext(ctx); err != nil {
			t.Fatal(err)
		}
	}
	list, _, err := e.store.ListPatterns(ctx, e.user.ID, store.Page{Page: 1, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]store.TagType{}
	for _, p := range list {
		kinds[p.Name] = p.Kind
		d, err := e.store.PatternDetail(ctx, &p)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range d.Flows {
			if strings.Contains(f.Trigger, "choir") {
				t.Errorf("pattern %q has a flow from the event it is: %+v", p.Name, f)
			}
		}
	}
	for name := range kinds {
		if name == "choir rehearsal" {
			t.Errorf("the trigger twinning the good behaviour is a pattern: %v", kinds)
		}
	}
	if kinds["sang in the choir"] != store.TagGoodBehaviour || kinds["a call from Dad"] != store.TagTrigger {
		t.Errorf("patterns %v; want the good behaviour sang in the choir and the trigger a call from Dad", kinds)
	}
}
