package pipeline_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/recur-journal/recur/pipeline"
	"github.com/recur-journal/recur/pipeline/fakeollama"
	"github.com/recur-journal/recur/pipeline/scripted"
	"github.com/recur-journal/recur/store"
)

// processed posts text and analyses it in the test's goroutine.
func (e *env) processed(text string) *store.Capture {
	e.t.Helper()
	c := e.capture(text)
	if _, err := e.pipe.ProcessNext(context.Background()); err != nil {
		e.t.Fatal(err)
	}
	c, err := e.store.FindCapture(context.Background(), e.user.ID, c.ID)
	if err != nil {
		e.t.Fatal(err)
	}
	return c
}

// triggerCategory is the category of the capture's first trigger.
func triggerCategory(t *testing.T, c *store.Capture) string {
	t.Helper()
	for _, sg := range c.Segments {
		for _, tg := range sg.Tags {
			if tg.Type == store.TagTrigger && tg.Category != nil {
				return tg.Category.Name
			}
		}
	}
	t.Fatalf("capture %q has no categorised trigger", c.Original)
	return ""
}

// Categorise is shown each new item's situation, and an item from a
// pleasant situation does not join a category whose situations were all
// unpleasant, even when the model puts it there.
func TestCategoriseValence(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, text, want string
	}{
		{"SameValenceJoins", "My boss yelled across the office. I felt anxious.", "criticism at work"},
		{"OppositeValenceFoundsItsOwn", "My boss yelled across the office. I felt calm and proud.", "harsh words from my boss"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, func(o *pipeline.Options) { o.Workers = 0 })
			e.processed("My boss criticised my report. I felt anxious.")
			if got := triggerCategory(t, e.processed(c.text)); got != c.want {
				t.Fatalf("the trigger joined %q, want %q", got, c.want)
			}
			var user string
			for _, call := range e.fake.Calls() {
				if call.Request != nil && scripted.Step(call.Request) == "categorise" {
					user = call.Request.Messages[1].Content
				}
			}
			for _, want := range []string{"From unpleasant situations:\n[ct1] criticism at work\n", "[t1] harsh words from my boss\n  from situation s1 (",
				"Situations:\n[s1] My boss yelled across the office. I felt"} {
				if !strings.Contains(user, want) {
					t.Errorf("the categorise prompt lacks %q:\n%s", want, user)
				}
			}
		})
	}
}

// A name the writer already has does not carry a situation of the other
// valence into its category: a pleasant mention of a known unpleasant
// trigger is categorised anew, and no category ends up holding pleasant
// and unpleasant situations.
func TestKnownNameNeverCrossesValence(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(o *pipeline.Options) { o.Workers = 0 })
	e.processed("My boss criticised my report. I felt anxious.")
	c := e.processed("My boss criticised my plan in the meeting. I felt calm and proud.")
	if got := triggerCategory(t, c); got == "criticism at work" {
		t.Fatalf("the pleasant criticism joined the unpleasant category %q", got)
	}
	var asked bool
	for _, call := range e.fake.Calls() {
		if call.Request != nil && scripted.Step(call.Request) == "categorise" && strings.Contains(call.Request.Messages[1].Content, "criticised my plan") {
			asked = true
		}
	}
	if !asked {
		t.Error("the pleasant mention of a known name was not put to the categoriser")
	}
	again := e.processed("My boss criticised my report again. I felt anxious.")
	if got := triggerCategory(t, again); got != "criticism at work" {
		t.Errorf("an unpleasant mention left its category: %q", got)
	}
	ids := map[string]bool{}
	for _, kind := range []store.TagType{store.TagTrigger} {
		cats, err := e.store.Categories(context.Background(), e.user.ID, kind)
		if err != nil {
			t.Fatal(err)
		}
		for _, cat := range cats {
			ids[cat.ID] = true
		}
	}
	var list []string
	for id := range ids {
		list = append(list, id)
	}
	valences, err := e.store.CategoryValences(context.Background(), e.user.ID, list)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range list {
		if _, ok := valences[id]; !ok {
			t.Errorf("category %s holds pleasant and unpleasant situations (valences %v)", id, valences)
		}
	}
}

// The categorise prompt lists at most a bounded number of existing
// categories of a kind however many the writer has, the most relevant to
// the new items first: each item's nearest comes before the others'
// second choices.
func TestCategoriseListIsBounded(t *testing.T) {
	t.Parallel()
	const bound = 16
	e := newEnv(t)
	wordEmbedding(e.fake)
	items := []string{"late train", "noisy neighbour", "rude email", "missed deadline", "long queue", "harsh review"}
	var seed []store.NewTag
	for _, it := range items {
		seed = append(seed, store.NewTag{Type: store.TagTrigger, Name: it + " again!", NewCategory: it + " again"})
		// Categories sharing one word with the item: near, but less so.
		for _, w := range strings.Fields(it) {
			for i := range 15 {
				name := fmt.Sprintf("%s thing%02d", w, i)
				seed = append(seed, store.NewTag{Type: store.TagTrigger, Name: name + "!", NewCategory: name})
			}
		}
	}
	e.seedTags(seed)
	e.answerWith(func(step string, req *api.ChatRequest) (fakeollama.Reply, bool) {
		return fakeollama.Reply{Content: extractReply(step, map[string][]string{"feelings": {"anxious"}, "triggers": items})}, extracting(step)
	})
	e.start()
	e.waitStatus(e.capture("My boss criticised my report. I felt anxious.").ID, store.StatusProcessed)

	var user string
	for _, call := range e.fake.Calls() {
		if call.Request != nil && scripted.Step(call.Request) == "categorise" {
			user = call.Request.Messages[1].Content
		}
	}
	var listed []string
	for _, ln := range strings.Split(user, "\n") {
		if strings.HasPrefix(ln, "[ct") {
			_, name, _ := strings.Cut(ln, "] ")
			listed = append(listed, name)
		}
	}
	if len(listed) == 0 || len(listed) > bound {
		t.Fatalf("%d trigger categories listed of %d, want 1 to %d:\n%s", len(listed), len(seed), bound, user)
	}
	for i, it := range items {
		if want := it + " again"; listed[i] != want {
			t.Errorf("category %d listed is %q, want %q (each item's nearest first); listed %q", i+1, listed[i], want, listed)
		}
	}
}
