package pipeline_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/recur-journal/recur/pipeline/fakeollama"
	"github.com/recur-journal/recur/pipeline/scripted"
	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

// TestPromptsStartFixed guards what lets a model server reuse its prompt
// cache (llama-server's cache_prompt, Ollama's slots): every step's prompt
// starts with its fixed instructions, vocabulary and schema, as the system
// message, byte for byte the same for two users' different entries, and
// what changes per entry comes after, in the user message. The context
// size, which Ollama reloads the model to change, is the same in every
// call too.
func TestPromptsStartFixed(t *testing.T) {
	e := newEnv(t)
	e.answerWith(func(step string, req *api.ChatRequest) (fakeollama.Reply, bool) {
		if step != "translate" || strings.HasPrefix(req.Messages[1].Content, "Mi jefe") {
			return fakeollama.Reply{}, false
		}
		return fakeollama.Reply{Content: `{"language":"de","parts":[{"text":"The train was late again. I was annoyed and stressed.","kind":"situation"}]}`}, true
	})
	e.start()
	other := storetest.MustCreateUser(t, e.store, "another@example.com")
	for _, w := range []struct {
		user *store.User
		text string
	}{
		{e.user, "Mi jefe criticó mi informe otra vez. Me sentí ansiosa y me salté el almuerzo."},
		{e.user, "My boss criticised my report in front of the team. I felt anxious all afternoon."},
		{other, "Der Zug hatte wieder Verspätung. Ich war genervt und gestresst."},
		{other, "The train was late again. I was annoyed. Later I went for a run and felt calm."},
	} {
		e.user = w.user
		e.waitStatus(e.capture(w.text).ID, store.StatusProcessed)
	}

	systems := map[string]map[string]bool{} // step: the system messages seen
	users := map[string]map[string]bool{}
	contexts := map[string]bool{}
	for _, c := range e.fake.Calls() {
		if c.Request == nil {
			continue
		}
		step := scripted.Step(c.Request)
		msgs := c.Request.Messages
		if len(msgs) != 2 || msgs[0].Role != "system" || msgs[1].Role != "user" {
			t.Errorf("%s: messages %+v; want the fixed system message first, then the user message", step, msgs)
			continue
		}
		if systems[step] == nil {
			systems[step], users[step] = map[string]bool{}, map[string]bool{}
		}
		systems[step][msgs[0].Content] = true
		users[step][msgs[1].Content] = true
		contexts[fmt.Sprint(c.Request.Options["num_ctx"])] = true
	}
	for _, step := range []string{"translate", "segment_extract", "extract", "categorise"} {
		if len(users[step]) < 2 {
			t.Errorf("%s: %d different prompts seen; want at least 2 to compare", step, len(users[step]))
			continue
		}
		if len(systems[step]) != 1 {
			t.Errorf("%s: %d different system messages across entries and users; want one, byte for byte", step, len(systems[step]))
		}
	}
	if len(contexts) != 1 {
		t.Errorf("num_ctx took the values %v; want one, so the model is never reloaded", contexts)
	}
}
