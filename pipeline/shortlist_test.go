package pipeline_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/recur-journal/recur/pipeline/fakeollama"
	"github.com/recur-journal/recur/pipeline/scripted"
	"github.com/recur-journal/recur/store"
)

// The extract step's shortlist offers the names the entry mentions in any
// of their forms, and each trigger and behaviour category once, by its
// name, before near neighbours: six wordings of one criticism crowd out
// neither "cooking" nor the other categories.
func TestShortlistOffersMentionsAndCategories(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	wordEmbedding(e.fake)
	var tags []store.NewTag
	for _, typ := range []store.TagType{store.TagLocation, store.TagActivity} {
		for _, n := range fillers(string(typ), 100) {
			tags = append(tags, store.NewTag{Type: typ, Name: n})
		}
	}
	// Near neighbours of the entry by its words, none of them what it is about.
	for _, n := range []string{"dinner party", "dinner out", "late dinner", "after work", "after dinner", "plan ahead", "my plan", "Dana's dinner", "dinner with Dana"} {
		tags = append(tags, store.NewTag{Type: store.TagActivity, Name: n})
	}
	tags = append(tags, store.NewTag{Type: store.TagActivity, Name: "cooking"}, store.NewTag{Type: store.TagLocation, Name: "home"})
	variants := []string{"slides", "plan", "code", "emails", "tone", "estimates"}
	for _, x := range variants {
		tags = append(tags, store.NewTag{Type: store.TagTrigger, Name: "criticism of my " + x + " from Dana", NewCategory: "criticism from Dana"})
	}
	for i := range 12 {
		tags = append(tags, store.NewTag{Type: store.TagTrigger, Name: fmt.Sprintf("topic%02d event", i), NewCategory: fmt.Sprintf("topic%02d", i)})
	}
	e.seedTags(tags)
	e.start()
	e.waitStatus(e.capture("Dana criticised my plan at work. After that I cooked dinner at home. I felt calm.").ID, store.StatusProcessed)

	offered := extractHeaders(t, e.fake)[0]
	for typ, want := range map[store.TagType]string{store.TagActivity: "cooking", store.TagLocation: "home"} {
		if !contains(offered[typ], want) {
			t.Errorf("%s %q, which the entry mentions as another form, not offered; offered %q", typ, want, offered[typ])
		}
	}
	triggers := offered[store.TagTrigger]
	if n := len(triggers); n > offeredEach {
		t.Errorf("%d triggers offered, want at most %d: %q", n, offeredEach, triggers)
	}
	if !contains(triggers, "criticism from Dana") {
		t.Errorf("the category %q not offered; offered %q", "criticism from Dana", triggers)
	}
	for _, n := range triggers {
		if strings.HasPrefix(n, "criticism of my") {
			t.Errorf("a wording of a category offered (%q) where the category is offered once; offered %q", n, triggers)
		}
	}
}

// An item the model names as one of the writer's categories joins that
// category, as one named as a tag of it does: the categorise step is not
// asked.
func TestCategoryNameJoinsItsCategory(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.seedTags([]store.NewTag{{Type: store.TagTrigger, Name: "Dana questioned my estimates", NewCategory: "criticism from Dana"}})
	e.answerWith(func(step string, req *api.ChatRequest) (fakeollama.Reply, bool) {
		lists := map[string][]string{"feelings": {"anxious"}, "triggers": {"criticism from Dana"}, "persons": {"Dana"}}
		return fakeollama.Reply{Content: extractReply(step, lists)}, extracting(step)
	})
	e.start()
	c := e.waitStatus(e.capture("Dana picked my plan apart in the meeting. I was anxious.").ID, store.StatusProcessed)
	if got := triggerCategory(t, c); got != "criticism from Dana" {
		t.Errorf("the trigger joined %q, want %q", got, "criticism from Dana")
	}
	for _, call := range e.fake.Calls() {
		if call.Request != nil && scripted.Step(call.Request) == "categorise" {
			t.Errorf("categorise was asked about an item named as a category:\n%s", call.Request.Messages[1].Content)
		}
	}
	cats, err := e.store.Categories(context.Background(), e.user.ID, store.TagTrigger)
	if err != nil {
		t.Fatal(err)
	}
	if len(cats) != 1 {
		t.Errorf("%d trigger categories, want the one", len(cats))
	}
}
