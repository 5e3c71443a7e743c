package pipeline_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/recur-journal/recur/pipeline/fakeollama"
)

// TestOverlongAnswerNotStored: a model that answers with 3,000 names in one
// situation, past the schema's maxItems of 6, is asked again, and when it
// keeps doing so the capture fails with its text only and no name stored.
func TestOverlongAnswerNotStored(t *testing.T) {
	t.Parallel()
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
	e.failsExtracting("The train was late again on my commute. I was frustrated and annoyed.")
}
