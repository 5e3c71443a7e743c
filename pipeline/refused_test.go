package pipeline_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/recur-journal/recur/internal/wait"
	"github.com/recur-journal/recur/pipeline"
	"github.com/recur-journal/recur/pipeline/fakeollama"
	"github.com/recur-journal/recur/pipeline/fakeopenai"
	"github.com/recur-journal/recur/pipeline/scripted"
	"github.com/recur-journal/recur/store"
)

// TestOpenAIRefusedRequest: an OpenAI-compatible server that answers 400
// (or 422, 413), or Ollama answering 400, refuses that request, so asking again is no use. Refused
// for one entry (a prompt beyond the context, say) while the server
// answers a plain check, the entry fails at once with the server's words
// and the next one is read; refused for every request (a server that does
// not take json_schema response formats), analysis waits as in an outage,
// saying why, until the server is put right. Never a transient error
// retried forever.
func TestOpenAIRefusedRequest(t *testing.T) {
	ctx := context.Background()
	for _, status := range []int{http.StatusBadRequest, http.StatusUnprocessableEntity, http.StatusRequestEntityTooLarge} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			f := fakeopenai.New(t)
			f.OnChat(func(*fakeopenai.ChatRequest) fakeopenai.Reply {
				return fakeopenai.Reply{Status: status, Error: "bad request"}
			})
			_, err := newOpenAI(t, f, "").Chat(ctx, plainRequest)
			if err == nil || errors.Is(err, pipeline.ErrTransient) || errors.Is(err, pipeline.ErrUnavailable) {
				t.Errorf("%d gave %v; want an error of neither kind", status, err)
			}
		})
	}
	t.Run("Ollama400", func(t *testing.T) {
		f := fakeollama.New(t)
		f.OnChat(func(*api.ChatRequest) fakeollama.Reply {
			return fakeollama.Reply{Status: http.StatusBadRequest, Error: "invalid format"}
		})
		model, err := pipeline.NewOllama(pipeline.OllamaOptions{URL: f.URL(), Model: "qwen2.5:7b", Timeout: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		_, err = model.Chat(ctx, plainRequest)
		if err == nil || errors.Is(err, pipeline.ErrTransient) || errors.Is(err, pipeline.ErrUnavailable) {
			t.Errorf("Ollama's 400 gave %v; want an error of neither kind", err)
		}
	})

	f := fakeopenai.New(t)
	lex, err := scripted.Load("testdata/lexicon.json")
	if err != nil {
		t.Fatal(err)
	}
	const tooLong = "the request (9000 tokens) exceeds the available context size (8192 tokens)"
	var refuseAll atomic.Bool
	answerFromLexicon(f, lex, func(step string) (fakeopenai.Reply, bool) {
		reply := fakeopenai.Reply{Status: http.StatusBadRequest, Error: tooLong}
		return reply, refuseAll.Load() || extracting(step)
	})
	e := newEnv(t, func(o *pipeline.Options) { o.Model = newOpenAI(t, f, "") })
	e.start()

	before := extractCalls(f)
	e.waitStatus(e.capture("The train was late again. I was annoyed.").ID, store.StatusFailed)
	if got := extractCalls(f) - before; got != 1 {
		t.Errorf("the refused extract was asked %d times, want once: the same request is refused again", got)
	}

	refuseAll.Store(true)
	id := e.capture("My boss criticised my report in front of the team. I felt anxious all afternoon.").ID
	wait.Eventually(t, 10*time.Second, "analysis waits, saying the server refuses", func() bool {
		out := e.pipe.Outage()
		return out.Failing && e.pipe.Waiting() && strings.Contains(out.LastError, tooLong)
	}, func() string { return fmt.Sprintf("outage %+v", e.pipe.Outage()) })
	if q, _ := e.store.QueueCounts(ctx); q.Failed != 1 {
		t.Errorf("queue %+v while every request is refused; want the waiting entry kept, only the first failed", q)
	}
	refuseAll.Store(false)
	answerFromLexicon(f, lex, nil)
	e.waitStatus(id, store.StatusProcessed)
}
