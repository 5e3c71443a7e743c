package pipeline_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/recur-journal/recur/pipeline/fakeollama"
	"github.com/recur-journal/recur/pipeline/scripted"
	"github.com/recur-journal/recur/store"
)

// TestOverlongAnswerNotStored: a model that answers with 3,000 names in one
// situation, past the schema's maxItems of 6, is asked again, and when it
// keeps doing so the capture fails with its text only and no name stored.
func TestOverlongAnswerNotStored(t *testing.T) {
	persons := make([]string, 3000)
	for i := range persons {
		persons[i] = fmt.Sprintf("person %d", i)
	}
	b, err := json.Marshal(map[string]any{"situations": []any{map[string]any{
		"situation": 1, "feelings": []string{"frustrated"}, "triggers": []string{"a late train"},
		"good_behaviours": []string{}, "bad_behaviours": []string{}, "persons": persons,
		"locations": []string{}, "activities": []string{"commuting"},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t)
	e.answerWith(func(step string, _ *api.ChatRequest) (fakeollama.Reply, bool) {
		return fakeollama.Reply{Content: string(b)}, step == "extract"
	})
	e.start()
	const text = "The train was late again on my commute. I was frustrated and annoyed."
	c := e.waitStatus(e.capture(text).ID, store.StatusFailed)
	if c.Original != text || len(c.Segments) != 0 {
		t.Fatalf("failed capture kept %q and %d segments; want its text only", c.Original, len(c.Segments))
	}
	extracts := 0
	for _, call := range e.fake.Calls() {
		if call.Request != nil && scripted.Step(call.Request) == "extract" {
			extracts++
		}
	}
	if extracts != 3 {
		t.Fatalf("extract was asked %d times, want 3 (the first try and two retries)", extracts)
	}
	tags, err := e.store.Tags(context.Background(), e.user.ID, store.TagTypes...)
	if err != nil {
		t.Fatal(err)
	}
	if len(tags) != 0 {
		t.Fatalf("%d tags stored from an answer over its bounds, want none", len(tags))
	}
}
