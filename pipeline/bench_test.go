package pipeline_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/recur-journal/recur/pipeline"
	"github.com/recur-journal/recur/pipeline/fakeollama"
	"github.com/recur-journal/recur/pipeline/scripted"
	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

// corpusEntry is one entry of testdata/journal.json.
type corpusEntry struct {
	OccurredAt time.Time `json:"occurred_at"`
	Text       string    `json:"text"`
}

func loadCorpus(tb testing.TB) []corpusEntry {
	b, err := os.ReadFile("testdata/journal.json")
	if err != nil {
		tb.Fatal(err)
	}
	var entries []corpusEntry
	if err := json.Unmarshal(b, &entries); err != nil {
		tb.Fatal(err)
	}
	return entries
}

// scriptedModel starts a fake Ollama that answers from the lexicon of
// testdata and returns it with a client for it.
func scriptedModel(tb testing.TB) (*fakeollama.Server, pipeline.Model) {
	lex, err := scripted.Load("testdata/lexicon.json")
	if err != nil {
		tb.Fatal(err)
	}
	fake := fakeollama.New(tb)
	fake.OnChat(func(req *api.ChatRequest) fakeollama.Reply { return fakeollama.Reply{Content: lex.Answer(req)} })
	model, err := pipeline.NewOllama(pipeline.OllamaOptions{URL: fake.URL(), Model: "qwen2.5:7b", EmbedModel: "nomic-embed-text", Timeout: 30 * time.Second})
	if err != nil {
		tb.Fatal(err)
	}
	return fake, model
}

// BenchmarkCorpus runs the shipped journal through the whole pipeline
// against the fake Ollama and reports what each capture costs in model
// calls and tokens. The token counts are the fake's estimates (a token per four
// bytes), so they compare prompts, not models.
func BenchmarkCorpus(b *testing.B) {
	entries := loadCorpus(b)
	_, model := scriptedModel(b)
	ctx := context.Background()
	var totals store.CallTotals
	captures := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		s := storetest.MustOpenAt(b, filepath.Join(b.TempDir(), "recur.db"), nil)
		u := storetest.MustCreateUser(b, s, "bench@example.com")
		var ids []string
		for _, e := range entries {
			c := &store.Capture{UserID: u.ID, Original: e.Text, OccurredAt: e.OccurredAt}
			if err := s.CreateCapture(ctx, c); err != nil {
				b.Fatal(err)
			}
			ids = append(ids, c.ID)
		}
		p := pipeline.New(pipeline.Options{Store: s, Model: model, ModelName: "qwen2.5:7b", Logger: discard()})
		b.StartTimer()
		drain(b, p)
		b.StopTimer()
		t, err := s.ModelCallTotals(ctx, ids)
		if err != nil {
			b.Fatal(err)
		}
		q, _ := s.QueueCounts(ctx)
		if q.Queued+q.Failed != 0 {
			b.Fatalf("corpus left %+v", q)
		}
		totals.Calls += t.Calls
		totals.PromptTokens += t.PromptTokens
		totals.OutputTokens += t.OutputTokens
		captures += len(ids)
		b.StartTimer()
	}
	b.ReportMetric(float64(totals.Calls)/float64(captures), "calls/capture")
	b.ReportMetric(float64(totals.PromptTokens)/float64(captures), "prompt_tokens/capture")
	b.ReportMetric(float64(totals.OutputTokens)/float64(captures), "output_tokens/capture")
}
