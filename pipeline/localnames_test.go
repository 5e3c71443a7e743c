package pipeline_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/recur-journal/recur/internal/wait"
	"github.com/recur-journal/recur/pipeline/fakeollama"
	"github.com/recur-journal/recur/store"
)

// A pattern is named once in the reader's language when app_locale is not
// English, from its English name, and the analysis keeps the English one;
// an English reader's patterns are never sent to be named.
func TestPatternNamedInTheReadersLanguage(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	t.Run("German", func(t *testing.T) {
		t.Parallel()
		e, id := describedEnv(t)
		var mu sync.Mutex
		var asked []string
		e.answerWith(func(step string, req *api.ChatRequest) (fakeollama.Reply, bool) {
			if step != "name" {
				return fakeollama.Reply{}, false
			}
			mu.Lock()
			defer mu.Unlock()
			asked = append(asked, req.Messages[1].Content)
			return fakeollama.Reply{Content: `{"names":["Kritik bei der Arbeit"]}`}, true
		})
		if err := e.store.PutSetting(ctx, e.user.ID, &store.Setting{Key: "app_locale", Value: "de"}); err != nil {
			t.Fatal(err)
		}
		e.start()
		e.pipe.Redescribe(e.user.ID)
		var names map[string]string
		wait.Eventually(t, 5*time.Second, "the pattern named in German", func() bool {
			names, _ = e.store.PatternNames(ctx, e.user.ID, "de")
			return names[id] != ""
		}, func() string { return fmt.Sprintf("names %v", names) })
		if got, want := names[id], "Kritik bei der Arbeit"; got != want {
			t.Errorf("German name %q, want %q", got, want)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(asked) != 1 || !strings.Contains(asked[0], "Language: German (de)") || !strings.Contains(asked[0], "1. criticism at work (trigger)") {
			t.Errorf("name requests %q", asked)
		}
		p, _ := e.store.FindPattern(ctx, e.user.ID, id)
		if p.Name != "criticism at work" {
			t.Errorf("the pattern's own name became %q; the analysis keeps English", p.Name)
		}
		if left, _ := e.store.CategoriesToName(ctx, e.user.ID, "de"); len(left) != 0 {
			t.Errorf("still to name in German: %v", left)
		}
	})
	t.Run("EnglishAsksNothing", func(t *testing.T) {
		t.Parallel()
		e, _ := describedEnv(t)
		for _, c := range e.fake.Calls() {
			if c.Request != nil && strings.HasPrefix(c.Request.Messages[0].Content, "You name the topics") {
				t.Fatalf("an English reader's patterns were sent to be named: %s", c.Request.Messages[1].Content)
			}
		}
	})
	t.Run("WrongCountRefused", func(t *testing.T) {
		t.Parallel()
		e, id := describedEnv(t)
		e.answerWith(func(step string, _ *api.ChatRequest) (fakeollama.Reply, bool) {
			return fakeollama.Reply{Content: `{"names":["Kritik","Arbeit"]}`}, step == "name"
		})
		if err := e.store.PutSetting(ctx, e.user.ID, &store.Setting{Key: "app_locale", Value: "de"}); err != nil {
			t.Fatal(err)
		}
		if err := e.pipe.Refresh(ctx, e.user.ID); err != nil {
			t.Fatal(err)
		}
		if names, _ := e.store.PatternNames(ctx, e.user.ID, "de"); names[id] != "" {
			t.Errorf("two names for one topic were kept: %q", names[id])
		}
	})
}
