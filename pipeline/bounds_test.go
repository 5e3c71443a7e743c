package pipeline_test

import (
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
	lists := map[string][]string{"feelings": {"frustrated"}, "triggers": {"a late train"}, "persons": persons, "activities": {"commuting"}}
	e := newEnv(t)
	e.answerWith(func(step string, _ *api.ChatRequest) (fakeollama.Reply, bool) {
		return fakeollama.Reply{Content: extractReply(step, lists)}, extracting(step)
	})
	e.start()
	e.failsExtracting("The train was late again on my commute. I was frustrated and annoyed.")
}
