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

func client(t *testing.T, f *fakeollama.Server, timeout time.Duration) *api.Client {
	u, err := url.Parse(f.URL())
	if err != nil {
		t.Fatal(err)
	}
	return api.NewClient(u, &http.Client{Timeout: timeout})
}

func chat(c *api.Client, stream bool) (string, api.ChatResponse, int, error) {
	var content string
	var last api.ChatResponse
	parts := 0
	err := c.Chat(context.Background(), &api.ChatRequest{Model: "qwen2.5:7b", Stream: &stream,
		Format:   json.RawMessage(`{"type":"object"}`),
		Messages: []api.Message{{Role: "system", Content: "be brief"}, {Role: "user", Content: "say hello to everyone here"}}},
		func(r api.ChatResponse) error {
			content += r.Message.Content
			last = r
			parts++
			return nil
		})
	return content, last, parts, err
}

func TestChat(t *testing.T) {
	const answer = `{"greeting":"hello, everyone, and welcome to the fake"}`
	f := fakeollama.New(t)
	f.OnChat(func(*api.ChatRequest) fakeollama.Reply {
		return fakeollama.Reply{Content: answer, PromptEvalCount: 42, EvalCount: 7}
	})
	c := client(t, f, 2*time.Second)

	t.Run("Streaming", func(t *testing.T) {
		content, last, parts, err := chat(c, true)
		if err != nil {
			t.Fatal(err)
		}
		if content != answer || parts < 3 {
			t.Fatalf("assembled %q from %d parts, want %q from several", content, parts, answer)
		}
		if !last.Done || last.DoneReason != "stop" || last.PromptEvalCount != 42 || last.EvalCount != 7 {
			t.Fatalf("last part = %+v", last)
		}
	})
	t.Run("NotStreaming", func(t *testing.T) {
		content, last, parts, err := chat(c, false)
		if err != nil || content != answer || parts != 1 || !last.Done {
			t.Fatalf("got %q in %d parts, done %v, err %v", content, parts, last.Done, err)
		}
	})
	t.Run("FormatReceived", func(t *testing.T) {
		calls := f.Calls()
		if got := string(calls[len(calls)-1].Format); got != `{"type":"object"}` {
			t.Fatalf("format = %s", got)
		}
		if st := f.Stats(); st.ChatCalls != 2 || st.PromptTokens != 84 || st.OutputTokens != 14 {
			t.Fatalf("stats = %+v", st)
		}
	})
}

func TestFaults(t *testing.T) {
	f := fakeollama.New(t)
	c := client(t, f, 300*time.Millisecond)
	t.Run("ServerError", func(t *testing.T) {
		f.OnChat(func(*api.ChatRequest) fakeollama.Reply { return fakeollama.Reply{Status: 500, Error: "boom"} })
		_, _, _, err := chat(c, false)
		var se api.StatusError
		if !errors.As(err, &se) || se.StatusCode != 500 || se.ErrorMessage != "boom" {
			t.Fatalf("err = %#v, want a StatusError 500", err)
		}
	})
	t.Run("Malformed", func(t *testing.T) {
		f.OnChat(func(*api.ChatRequest) fakeollama.Reply { return fakeollama.Reply{Raw: `{"message": {"content": "tru`} })
		if _, _, _, err := chat(c, false); err == nil {
			t.Fatal("a malformed body gave no error")
		}
	})
	t.Run("Slow", func(t *testing.T) {
		f.OnChat(func(*api.ChatRequest) fakeollama.Reply { return fakeollama.Reply{Content: "{}", Delay: time.Second} })
		var ne interface{ Timeout() bool }
		if _, _, _, err := chat(c, false); !errors.As(err, &ne) || !ne.Timeout() {
			t.Fatalf("err = %v, want a timeout", err)
		}
	})
	t.Run("UnknownModel", func(t *testing.T) {
		f.SetModels("other")
		defer f.SetModels("qwen2.5:7b", "nomic-embed-text")
		_, _, _, err := chat(c, false)
		var se api.StatusError
		if !errors.As(err, &se) || se.StatusCode != 404 {
			t.Fatalf("err = %v, want 404", err)
		}
	})
	t.Run("DownAndUp", func(t *testing.T) {
		f.OnChat(func(*api.ChatRequest) fakeollama.Reply { return fakeollama.Reply{Content: "{}"} })
		f.Down()
		if _, err := c.Version(context.Background()); err == nil {
			t.Fatal("a server that is down answered")
		}
		f.Up()
		if v, err := c.Version(context.Background()); err != nil || v != fakeollama.Version {
			t.Fatalf("after Up: %q, %v", v, err)
		}
	})
}

func TestOtherRoutes(t *testing.T) {
	f := fakeollama.New(t)
	c := client(t, f, 2*time.Second)
	ctx := context.Background()
	res, err := c.Embed(ctx, &api.EmbedRequest{Model: "nomic-embed-text", Input: []string{"late train", "train late again", "cooked dinner"}})
	if err != nil || len(res.Embeddings) != 3 {
		t.Fatalf("embed = %v, %v", res, err)
	}
	dot := func(a, b []float32) (s float32) {
		for i := range a {
			s += a[i] * b[i]
		}
		return s
	}
	if dot(res.Embeddings[0], res.Embeddings[1]) <= dot(res.Embeddings[0], res.Embeddings[2]) {
		t.Error("texts sharing words are not nearer than texts sharing none")
	}
	if st := f.Stats(); st.EmbedCalls != 1 {
		t.Errorf("embed calls = %d", st.EmbedCalls)
	}
	list, err := c.List(ctx)
	if err != nil || len(list.Models) != 2 {
		t.Fatalf("list = %v, %v", list, err)
	}
	if _, err := c.Show(ctx, &api.ShowRequest{Model: "qwen2.5:7b"}); err != nil {
		t.Fatalf("show: %v", err)
	}
	if _, err := c.Show(ctx, &api.ShowRequest{Model: "missing"}); err == nil {
		t.Fatal("show of a missing model succeeded")
	}
}
