package pipeline_test

import (
	"context"
	"strings"
	"testing"

	"github.com/recur-journal/recur/pipeline"
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
			for _, want := range []string{"From unpleasant situations:\n[ct1] criticism at work\n", "[t1] harsh words from my boss\n  situation (",
				"): My boss yelled across the office. I felt"} {
				if !strings.Contains(user, want) {
					t.Errorf("the categorise prompt lacks %q:\n%s", want, user)
				}
			}
		})
	}
}
