package fakeollama_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/recur-journal/recur/pipeline/fakeollama"
)

// newClient is the real Ollama client, pointed at f.
func newClient(t *testing.T, f *fakeollama.Server, timeout time.Duration) *api.Client {
	t.Helper()
	u, err := url.Parse(f.URL())
	if err != nil {
		t.Fatal(err)
	}
	return api.NewClient(u, &http.Client{Timeout: timeout})
}

// answer is what one Client.Chat call got.
type answer struct {
	content string           // the message content, assembled
	last    api.ChatResponse // the last response
	parts   int              // how many responses
}

// chat sends req through c and assembles the answer.
func chat(c *api.Client, req *api.ChatRequest) (answer, error) {
	var a answer
	err := c.Chat(context.Background(), req, func(r api.ChatResponse) error {
		a.content += r.Message.Content
		a.last = r
		a.parts++
		return nil
	})
	return a, err
}

// request is a chat request to the default chat model.
func request(stream *bool) *api.ChatRequest {
	return &api.ChatRequest{
		Model:  "qwen2.5:7b",
		Stream: stream,
		Format: json.RawMessage(`{"type": "object", "required": ["greeting"]}`),
		Messages: []api.Message{
			{Role: "system", Content: "Answer in JSON."},
			{Role: "user", Content: "Say hello to everyone here."},
		},
	}
}

func ptr[T any](v T) *T { return &v }

func TestChat(t *testing.T) {
	t.Parallel()
	const content = `{"greeting": "hello, everyone, and welcome to the fake Ollama"}`
	f := fakeollama.New(t)
	f.OnChat(func(*api.ChatRequest) fakeollama.Reply {
		return fakeollama.Reply{Content: content, PromptEvalCount: 42, EvalCount: 7}
	})
	c := newClient(t, f, 2*time.Second)

	for _, tc := range []struct {
		name      string
		stream    *bool
		manyParts bool
	}{
		{"Streaming", ptr(true), true},
		{"StreamingByDefault", nil, true},
		{"NotStreaming", ptr(false), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := chat(c, request(tc.stream))
			if err != nil {
				t.Fatal(err)
			}
			if got, want := a.content, content; got != want {
				t.Errorf("content = %q, want %q", got, want)
			}
			if got, want := a.parts > 2, tc.manyParts; got != want {
				t.Errorf("answer came in %d parts, want several: %v", a.parts, want)
			}
			if got, want := a.last.Done, true; got != want {
				t.Errorf("last part done = %v, want %v", got, want)
			}
			if got, want := a.last.DoneReason, "stop"; got != want {
				t.Errorf("done reason = %q, want %q", got, want)
			}
			if got, want := a.last.PromptEvalCount, 42; got != want {
				t.Errorf("prompt eval count = %d, want %d", got, want)
			}
			if got, want := a.last.EvalCount, 7; got != want {
				t.Errorf("eval count = %d, want %d", got, want)
			}
			if got, want := a.last.Model, "qwen2.5:7b"; got != want {
				t.Errorf("model = %q, want %q", got, want)
			}
			if a.last.CreatedAt.IsZero() || a.last.EvalDuration <= 0 || a.last.TotalDuration <= 0 {
				t.Errorf("last part lacks a time or durations: %+v", a.last)
			}
		})
	}
	t.Run("FormatReceived", func(t *testing.T) {
		calls := f.Calls()
		if got, want := len(calls), 3; got != want {
			t.Fatalf("%d calls, want %d", got, want)
		}
		// The client compacts a json.RawMessage as it marshals the request.
		if got, want := string(calls[2].Format), `{"type":"object","required":["greeting"]}`; got != want {
			t.Errorf("format = %s, want %s", got, want)
		}
		if got, want := calls[2].Request.Messages[1].Content, "Say hello to everyone here."; got != want {
			t.Errorf("user message = %q, want %q", got, want)
		}
		if got, want := f.Stats(), (fakeollama.Stats{ChatCalls: 3, PromptTokens: 3 * 42, OutputTokens: 3 * 7}); got != want {
			t.Errorf("stats = %+v, want %+v", got, want)
		}
	})
	t.Run("DefaultReply", func(t *testing.T) {
		f := fakeollama.New(t)
		a, err := chat(newClient(t, f, 2*time.Second), request(nil))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := a.content, "{}"; got != want {
			t.Errorf("content = %q, want %q", got, want)
		}
	})
	t.Run("EstimatedCounts", func(t *testing.T) {
		f := fakeollama.New(t)
		f.OnChat(func(*api.ChatRequest) fakeollama.Reply { return fakeollama.Reply{Content: content} })
		req := request(ptr(false))
		a, err := chat(newClient(t, f, 2*time.Second), req)
		if err != nil {
			t.Fatal(err)
		}
		prompt := fakeollama.Tokens(req.Messages[0].Content) + fakeollama.Tokens(req.Messages[1].Content)
		if got, want := a.last.PromptEvalCount, prompt; got != want || got == 0 {
			t.Errorf("prompt eval count = %d, want %d", got, want)
		}
		if got, want := a.last.EvalCount, fakeollama.Tokens(content); got != want || got == 0 {
			t.Errorf("eval count = %d, want %d", got, want)
		}
		if got, want := f.Calls()[0].OutputTokens, a.last.EvalCount; got != want {
			t.Errorf("recorded output tokens = %d, want %d", got, want)
		}
	})
	t.Run("Truncated", func(t *testing.T) {
		f := fakeollama.New(t)
		f.OnChat(func(*api.ChatRequest) fakeollama.Reply {
			return fakeollama.Reply{Content: `{"greeting": "hel`, DoneReason: "length"}
		})
		a, err := chat(newClient(t, f, 2*time.Second), request(nil))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := a.last.DoneReason, "length"; got != want {
			t.Errorf("done reason = %q, want %q", got, want)
		}
	})
	t.Run("NoMessagesLoadsTheModel", func(t *testing.T) {
		a, err := chat(c, &api.ChatRequest{Model: "qwen2.5:7b"})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := a.last.DoneReason, "load"; got != want || !a.last.Done || a.parts != 1 {
			t.Errorf("done reason = %q in %d parts, want %q in one", got, a.parts, want)
		}
	})
}

func TestChatFaults(t *testing.T) {
	t.Parallel()
	f := fakeollama.New(t)
	c := newClient(t, f, 300*time.Millisecond)
	script := func(r fakeollama.Reply) {
		f.OnChat(func(*api.ChatRequest) fakeollama.Reply { return r })
	}
	for _, tc := range []struct {
		name    string
		reply   fakeollama.Reply
		stream  bool
		message string
	}{
		{"ServerError", fakeollama.Reply{Status: 500, Error: "model runner crashed"}, false, "model runner crashed"},
		{"ServerErrorStreaming", fakeollama.Reply{Status: 500, Error: "model runner crashed"}, true, "model runner crashed"},
		{"ServerErrorWithoutMessage", fakeollama.Reply{Status: 500}, false, "Internal Server Error"},
		{"NotJSONFromAProxy", fakeollama.Reply{Status: 502, Raw: "<html>Bad Gateway</html>"}, false, "<html>Bad Gateway</html>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			script(tc.reply)
			_, err := chat(c, request(&tc.stream))
			var se api.StatusError // returned by value
			if !errors.As(err, &se) {
				t.Fatalf("err = %#v, want an api.StatusError", err)
			}
			if got, want := se.StatusCode, tc.reply.Status; got != want {
				t.Errorf("status code = %d, want %d", got, want)
			}
			if got, want := se.ErrorMessage, tc.message; got != want {
				t.Errorf("error message = %q, want %q", got, want)
			}
		})
	}
	for _, tc := range []struct {
		name   string
		stream bool
	}{{"Malformed", false}, {"MalformedStreaming", true}} {
		t.Run(tc.name, func(t *testing.T) {
			script(fakeollama.Reply{Raw: `{"message": {"role": "assistant", "content": "tru`})
			if _, err := chat(c, request(&tc.stream)); err == nil {
				t.Fatal("a malformed body gave no error")
			}
		})
	}
	t.Run("StreamEndingEarly", func(t *testing.T) {
		// The client returns no error for a stream that stops before its
		// done line: only the missing Done tells.
		script(fakeollama.Reply{Raw: `{"model":"qwen2.5:7b","message":{"role":"assistant","content":"{\"gre"},"done":false}` + "\n"})
		a, err := chat(c, request(nil))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := a.last.Done, false; got != want {
			t.Errorf("done = %v, want %v", got, want)
		}
	})
	t.Run("Slow", func(t *testing.T) {
		script(fakeollama.Reply{Content: "{}", Delay: 2 * time.Second})
		start := time.Now()
		_, err := chat(c, request(ptr(false)))
		var timeout interface{ Timeout() bool }
		if !errors.As(err, &timeout) || !timeout.Timeout() {
			t.Fatalf("err = %v, want a timeout", err)
		}
		if got := time.Since(start); got > time.Second {
			t.Errorf("the client waited %v", got)
		}
	})
	t.Run("SlowCancelled", func(t *testing.T) {
		script(fakeollama.Reply{Content: "{}", Delay: 2 * time.Second})
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		err := c.Chat(ctx, request(nil), func(api.ChatResponse) error { return nil })
		if got, want := errors.Is(err, context.DeadlineExceeded), true; got != want {
			t.Fatalf("err = %v, want the context's deadline", err)
		}
	})
	t.Run("UnknownModel", func(t *testing.T) {
		script(fakeollama.Reply{Content: "{}"})
		req := request(ptr(false))
		req.Model = "llama3:8b"
		_, err := chat(c, req)
		var se api.StatusError
		if !errors.As(err, &se) {
			t.Fatalf("err = %#v, want an api.StatusError", err)
		}
		if got, want := se.StatusCode, http.StatusNotFound; got != want {
			t.Errorf("status code = %d, want %d", got, want)
		}
		if got, want := se.ErrorMessage, "model 'llama3:8b' not found"; got != want {
			t.Errorf("error message = %q, want %q", got, want)
		}
	})
	t.Run("EmbeddingModelCannotChat", func(t *testing.T) {
		req := request(ptr(false))
		req.Model = "nomic-embed-text"
		_, err := chat(c, req)
		var se api.StatusError
		if !errors.As(err, &se) || se.StatusCode != http.StatusBadRequest {
			t.Fatalf("err = %#v, want a 400 api.StatusError", err)
		}
	})
}
