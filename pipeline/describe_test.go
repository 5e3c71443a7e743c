package pipeline_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/recur-journal/recur/internal/wait"
	"github.com/recur-journal/recur/pipeline/fakeollama"
	"github.com/recur-journal/recur/store"
)

// describedEnv runs three days of the boss criticising the user through the
// pipeline, with detection, so that one pattern needs a description.
func describedEnv(t *testing.T) (*env, string) {
	t.Helper()
	e, now := detectingEnv(t)
	ctx := context.Background()
	for d := 1; d <= 3; d++ {
		c := &store.Capture{UserID: e.user.ID, Original: "My boss criticised my report. I felt anxious.", OccurredAt: now.AddDate(0, 0, -d)}
		if err := e.store.CreateCapture(ctx, c); err != nil {
			t.Fatal(err)
		}
		if _, err := e.pipe.ProcessNext(ctx); err != nil {
			t.Fatal(err)
		}
	}
	list, _, err := e.store.ListPatterns(ctx, e.user.ID, store.Page{Page: 1, Limit: 10})
	if err != nil || len(list) != 1 {
		t.Fatalf("patterns = %v, %v", list, err)
	}
	return e, list[0].ID
}

func TestDescribe(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	t.Run("Written", func(t *testing.T) {
		t.Parallel()
		e, id := describedEnv(t)
		p, _ := e.store.FindPattern(ctx, e.user.ID, id)
		if !strings.HasPrefix(p.Description, "This keeps coming back for you: criticism at work.") || p.DescriptionLocale != "en" {
			t.Fatalf("description = %q (%s)", p.Description, p.DescriptionLocale)
		}
		var describe *api.ChatRequest
		for _, c := range e.fake.Calls() {
			if c.Request != nil && strings.HasPrefix(c.Request.Messages[0].Content, "You write the description") {
				describe = c.Request
			}
		}
		if describe == nil || !strings.Contains(describe.Messages[1].Content, "My boss criticised my report.") ||
			!strings.Contains(describe.Messages[1].Content, "Language: English (en)") {
			t.Fatalf("describe request = %+v", describe)
		}
	})
	t.Run("RewrittenWhenLocaleChanges", func(t *testing.T) {
		t.Parallel()
		e, id := describedEnv(t)
		if err := e.store.PutSetting(ctx, e.user.ID, &store.Setting{Key: "app_locale", Value: "pt-PT"}); err != nil {
			t.Fatal(err)
		}
		e.start()
		e.pipe.Redescribe(e.user.ID)
		var p *store.Pattern
		wait.Eventually(t, 5*time.Second, "the description written again in pt-PT", func() bool {
			p, _ = e.store.FindPattern(ctx, e.user.ID, id)
			return p.DescriptionLocale == "pt-PT"
		}, func() string { return fmt.Sprintf("it is in %q", p.DescriptionLocale) })
		if !strings.HasPrefix(p.Description, "Isto volta muitas vezes") {
			t.Fatalf("description = %q, want Portuguese", p.Description)
		}
	})
	t.Run("UngroundedRefused", func(t *testing.T) {
		t.Parallel()
		e, id := describedEnv(t)
		// Another capture names Sam; a description of the boss pattern may not.
		if err := e.store.PutSetting(ctx, e.user.ID, &store.Setting{Key: "app_locale", Value: "en-GB"}); err != nil {
			t.Fatal(err)
		}
		c := &store.Capture{UserID: e.user.ID, Original: "Cooked dinner at home with Sam. I felt content."}
		if err := e.store.CreateCapture(ctx, c); err != nil {
			t.Fatal(err)
		}
		e.answerWith(func(step string, _ *api.ChatRequest) (fakeollama.Reply, bool) {
			return fakeollama.Reply{Content: `{"description":"You feel anxious when your boss and Sam criticise you."}`}, step == "describe"
		})
		if _, err := e.pipe.ProcessNext(ctx); err != nil {
			t.Fatal(err)
		}
		p, _ := e.store.FindPattern(ctx, e.user.ID, id)
		if strings.Contains(p.Description, "Sam") || p.DescriptionLocale != "en" {
			t.Fatalf("an ungrounded description was kept: %q (%s)", p.Description, p.DescriptionLocale)
		}
	})
}

// A rejected pattern's topic is left alone: a new trigger of the same
// meaning joins its rejected category, which keeps its name, and no new
// pattern or category grows from it.
func TestRejectedTopicLeftAlone(t *testing.T) {
	t.Parallel()
	e, id := describedEnv(t)
	ctx := context.Background()
	if _, err := e.store.ReviewPattern(ctx, e.user.ID, id, store.PatternRejected); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		c := &store.Capture{UserID: e.user.ID, Original: "My boss yelled at me. I felt anxious."}
		if err := e.store.CreateCapture(ctx, c); err != nil {
			t.Fatal(err)
		}
		if _, err := e.pipe.ProcessNext(ctx); err != nil {
			t.Fatal(err)
		}
	}
	cats, _ := e.store.Categories(ctx, e.user.ID, store.TagTrigger)
	if len(cats) != 1 || cats[0].Name != "criticism at work" || !cats[0].Rejected {
		t.Fatalf("trigger categories = %+v, want the one rejected category, unchanged", cats)
	}
	tags, _ := e.store.Tags(ctx, e.user.ID, store.TagTrigger)
	for _, tg := range tags {
		if tg.Name == "harsh words from my boss" && (tg.Category == nil || tg.Category.ID != cats[0].ID) {
			t.Fatalf("the new trigger joined %+v, want the rejected category", tg.Category)
		}
	}
	p, _ := e.store.FindPattern(ctx, e.user.ID, id)
	list, _, _ := e.store.ListPatterns(ctx, e.user.ID, store.Page{Page: 1, Limit: 10})
	if p.Status != store.PatternRejected || len(list) != 0 {
		t.Fatalf("pattern %s, listed %v: want it rejected and nothing listed", p.Status, list)
	}
}
