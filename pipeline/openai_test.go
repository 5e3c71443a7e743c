package pipeline_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/recur-journal/recur/pipeline"
	"github.com/recur-journal/recur/pipeline/fakeopenai"
	"github.com/recur-journal/recur/pipeline/scripted"
	"github.com/recur-journal/recur/store"
)

const testKey = "sk-test-0123456789"

// newOpenAI is the OpenAI provider pointed at f, with the test key.
func newOpenAI(t *testing.T, f *fakeopenai.Server, url string) pipeline.Provider {
	t.Helper()
	if url == "" {
		url = f.URL()
	}
	p, err := pipeline.NewProvider(pipeline.ModelOptions{Provider: "openai", URL: url, Model: fakeopenai.DefaultModels[0],
		EmbedModel: fakeopenai.DefaultModels[1], APIKey: testKey, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// answerFromLexicon scripts f with the lexicon's answers, as the model
// would give them, unless fault gives a reply of its own.
func answerFromLexicon(f *fakeopenai.Server, lex *scripted.Lexicon, fault func(step string) (fakeopenai.Reply, bool)) {
	f.OnChat(func(req *fakeopenai.ChatRequest) fakeopenai.Reply {
		r := scripted.Request(req.Text())
		if fault != nil {
			if reply, ok := fault(scripted.Step(r)); ok {
				return reply
			}
		}
		return fakeopenai.Reply{Content: lex.Answer(r)}
	})
}

var plainRequest = pipeline.ChatRequest{Step: "check", MaxTokens: 20, System: "Reply with JSON.", User: "Are you there?",
	Schema: json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`)}

// TestOpenAIRequest checks what a chat call sends: the key as a bearer
// token, the schema as a strict json_schema response format, the prompt's
// two parts, temperature 0, a fixed seed and the token limit; and what it
// reads back: the content and the usage.
func TestOpenAIRequest(t *testing.T) {
	t.Parallel()
	f := fakeopenai.New(t)
	f.RequireKey(testKey)
	f.OnChat(func(*fakeopenai.ChatRequest) fakeopenai.Reply { return fakeopenai.Reply{Content: `{"ok": true}`} })
	res, err := newOpenAI(t, f, "").Chat(context.Background(), plainRequest)
	if err != nil {
		t.Fatal(err)
	}
	if res.Content != `{"ok": true}` || res.Truncated || res.PromptTokens == 0 || res.OutputTokens == 0 {
		t.Errorf("result = %+v, want the content, not truncated, with the usage's token counts", res)
	}
	calls := f.Calls()
	if len(calls) != 1 {
		t.Fatalf("%d calls, want 1", len(calls))
	}
	c := calls[0]
	if c.Authorization != "Bearer "+testKey {
		t.Errorf("Authorization = %q, want the key as a bearer token", c.Authorization)
	}
	var format struct {
		Type       string `json:"type"`
		JSONSchema struct {
			Name   string          `json:"name"`
			Schema json.RawMessage `json:"schema"`
			Strict bool            `json:"strict"`
		} `json:"json_schema"`
	}
	if err := json.Unmarshal(c.Chat.ResponseFormat, &format); err != nil {
		t.Fatalf("response_format %s: %v", c.Chat.ResponseFormat, err)
	}
	if format.Type != "json_schema" || format.JSONSchema.Name != "check" || !format.JSONSchema.Strict ||
		string(format.JSONSchema.Schema) != string(plainRequest.Schema) {
		t.Errorf("response_format = %s, want a strict json_schema named check holding the schema", c.Chat.ResponseFormat)
	}
	if c.Chat.Temperature == nil || *c.Chat.Temperature != 0 || c.Chat.Seed == nil || c.Chat.MaxTokens != 20 || c.Chat.Stream {
		t.Errorf("temperature %v, seed %v, max_tokens %d, stream %v; want 0, fixed, 20, false",
			c.Chat.Temperature, c.Chat.Seed, c.Chat.MaxTokens, c.Chat.Stream)
	}
	if len(c.Chat.Messages) != 2 || c.Chat.Messages[0].Content != plainRequest.System || c.Chat.Messages[1].Content != plainRequest.User {
		t.Errorf("messages = %+v, want the system and user parts", c.Chat.Messages)
	}
}

// TestOpenAIErrors checks that each failure is of the kind that decides
// what becomes of the capture: unreachable (it waits), transient (retried
// with backoff, after the wait the server asked for), or an answer cut
// off at the token limit (unusable).
func TestOpenAIErrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	reply := func(r fakeopenai.Reply) *fakeopenai.Server {
		f := fakeopenai.New(t)
		f.OnChat(func(*fakeopenai.ChatRequest) fakeopenai.Reply { return r })
		return f
	}
	t.Run("LengthIsTruncated", func(t *testing.T) {
		f := reply(fakeopenai.Reply{Content: `{"ok": tr`, FinishReason: "length"})
		res, err := newOpenAI(t, f, "").Chat(ctx, plainRequest)
		if err != nil || !res.Truncated {
			t.Errorf("finish_reason length gave %+v, %v; want a truncated answer", res, err)
		}
	})
	t.Run("RetryAfterSeconds", func(t *testing.T) {
		f := reply(fakeopenai.Reply{Status: http.StatusTooManyRequests, RetryAfter: "7", Error: "Rate limit reached"})
		_, err := newOpenAI(t, f, "").Chat(ctx, plainRequest)
		var rl *pipeline.RetryLater
		if !errors.Is(err, pipeline.ErrTransient) || !errors.As(err, &rl) || rl.Wait != 7*time.Second {
			t.Errorf("429 with Retry-After: 7 gave %v; want a transient error asking for 7s", err)
		}
		if err != nil && !strings.Contains(err.Error(), "Rate limit reached") {
			t.Errorf("error %q does not say the server's message", err)
		}
	})
	t.Run("RetryAfterDate", func(t *testing.T) {
		at := time.Now().Add(time.Hour).UTC().Format(http.TimeFormat)
		f := reply(fakeopenai.Reply{Status: http.StatusServiceUnavailable, RetryAfter: at})
		_, err := newOpenAI(t, f, "").Chat(ctx, plainRequest)
		var rl *pipeline.RetryLater
		if !errors.As(err, &rl) || rl.Wait < 58*time.Minute || rl.Wait > time.Hour {
			t.Errorf("503 with Retry-After %s gave %v; want a wait of about an hour", at, err)
		}
	})
	for _, status := range []int{http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			f := reply(fakeopenai.Reply{Status: status})
			_, err := newOpenAI(t, f, "").Chat(ctx, plainRequest)
			if !errors.Is(err, pipeline.ErrTransient) || errors.Is(err, pipeline.ErrUnavailable) {
				t.Errorf("%d gave %v; want a transient error", status, err)
			}
		})
	}
	t.Run("ConnectionRefused", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		_, err = newOpenAI(t, fakeopenai.New(t), "http://"+addr+"/v1").Chat(ctx, plainRequest)
		if !errors.Is(err, pipeline.ErrUnavailable) {
			t.Errorf("a refused connection gave %v; want ErrUnavailable", err)
		}
	})
	for _, tc := range []struct {
		name      string
		set       func(*fakeopenai.Server)
		reachable bool
		problem   string
	}{
		{"ModelMissing", func(f *fakeopenai.Server) { f.SetModels("another-model") }, true, "[model] name"},
		{"WrongKey", func(f *fakeopenai.Server) { f.RequireKey("another key") }, false, "api_key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := fakeopenai.New(t)
			tc.set(f)
			p := newOpenAI(t, f, "")
			if _, err := p.Chat(ctx, plainRequest); !errors.Is(err, pipeline.ErrUnavailable) {
				t.Errorf("chat gave %v; want ErrUnavailable, so captures wait", err)
			}
			if st := p.Check(ctx); st.Reachable != tc.reachable || st.ModelPresent || !strings.Contains(st.Problem, tc.problem) {
				t.Errorf("check = %+v; want reachable %v, the model not found, and a problem naming %s", st, tc.reachable, tc.problem)
			}
		})
	}
	t.Run("AnswerTooLong", func(t *testing.T) {
		f := reply(fakeopenai.Reply{Content: strings.Repeat("x", 5<<20)})
		if _, err := newOpenAI(t, f, "").Chat(ctx, plainRequest); !errors.Is(err, pipeline.ErrTransient) {
			t.Errorf("a 5 MiB answer gave %v; want a transient error, unread", err)
		}
	})
	t.Run("Embeddings", func(t *testing.T) {
		f := fakeopenai.New(t)
		f.RequireKey(testKey)
		v, err := newOpenAI(t, f, "").Embed(ctx, []string{"a walk", "the park", "a walk"})
		if err != nil || len(v) != 3 || len(v[0]) == 0 || v[0][0] != v[2][0] || v[0][0] == v[1][0] {
			t.Errorf("embeddings = %v, %v; want one vector per input, the same for the same text", v, err)
		}
	})
}

// TestOpenAIProviderRun analyses entries end to end through an
// OpenAI-compatible server that wants a key: a capture is processed with
// its tags, and one whose extract answers are always cut off at the token
// limit fails after the first try and two retries.
func TestOpenAIProviderRun(t *testing.T) {
	t.Parallel()
	f := fakeopenai.New(t)
	f.RequireKey(testKey)
	lex, err := scripted.Load("testdata/lexicon.json")
	if err != nil {
		t.Fatal(err)
	}
	answerFromLexicon(f, lex, func(step string) (fakeopenai.Reply, bool) {
		return fakeopenai.Reply{Content: `{"situations": [`, FinishReason: "length"}, false
	})
	model := newOpenAI(t, f, "")
	e := newEnv(t, func(o *pipeline.Options) { o.Model = model })
	e.start()

	c := e.waitStatus(e.capture("My boss criticised my report in front of the team. I felt anxious all afternoon.").ID, store.StatusProcessed)
	if got := tagNames(c, store.TagNegativeFeeling); !contains(got, "anxious") {
		t.Errorf("negative feelings %v, want anxious among them", got)
	}
	if len(e.fake.Calls()) != 0 {
		t.Errorf("the Ollama stand-in got %d calls; want all through the OpenAI provider", len(e.fake.Calls()))
	}

	answerFromLexicon(f, lex, func(step string) (fakeopenai.Reply, bool) {
		return fakeopenai.Reply{Content: `{"situations": [`, FinishReason: "length"}, extracting(step)
	})
	before := extractCalls(f)
	e.waitStatus(e.capture("The train was late again. I was annoyed.").ID, store.StatusFailed)
	if got := extractCalls(f) - before; got != 3 {
		t.Errorf("extract was asked %d times, want 3 (the first try and two retries)", got)
	}
}

func extractCalls(f *fakeopenai.Server) int {
	n := 0
	for _, c := range f.Calls() {
		if c.Chat != nil && extracting(scripted.Step(scripted.Request(c.Chat.Text()))) {
			n++
		}
	}
	return n
}
