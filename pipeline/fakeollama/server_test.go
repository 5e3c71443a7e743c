package fakeollama_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/recur-journal/recur/internal/wait"
	"github.com/recur-journal/recur/pipeline/fakeollama"
)

func TestDownAndUp(t *testing.T) {
	t.Parallel()
	f := fakeollama.New(t)
	c := newClient(t, f, 2*time.Second)
	ctx := context.Background()
	url := f.URL()

	t.Run("Down", func(t *testing.T) {
		f.Down()
		f.Down() // a second time does nothing
		_, err := chat(c, request(nil))
		if got, want := errors.Is(err, syscall.ECONNREFUSED), true; got != want {
			t.Fatalf("err = %v, want connection refused", err)
		}
	})
	t.Run("Up", func(t *testing.T) {
		f.Up()
		f.Up() // a second time does nothing
		if got, want := f.URL(), url; got != want {
			t.Errorf("URL = %q, want %q", got, want)
		}
		if _, err := chat(c, request(nil)); err != nil {
			t.Fatalf("chat after Up: %v", err)
		}
	})
	t.Run("DownDuringACall", func(t *testing.T) {
		f.OnChat(func(*api.ChatRequest) fakeollama.Reply {
			return fakeollama.Reply{Content: "{}", Delay: 5 * time.Second}
		})
		f.Reset()
		done := make(chan error, 1)
		go func() {
			_, err := chat(c, request(nil))
			done <- err
		}()
		wait.Eventually(t, 2*time.Second, "the call arrives", func() bool { return len(f.Calls()) >= 1 }, nil)
		f.Down()
		select {
		case err := <-done:
			if err == nil {
				t.Error("a call cut by Down succeeded")
			}
		case <-time.After(2 * time.Second):
			t.Fatal("a call in flight outlived Down")
		}
		f.Up()
		if _, err := c.Version(ctx); err != nil {
			t.Fatalf("version after Up: %v", err)
		}
	})
}

func TestEmbed(t *testing.T) {
	t.Parallel()
	f := fakeollama.New(t)
	c := newClient(t, f, 2*time.Second)
	ctx := context.Background()
	dot := func(a, b []float32) (s float32) {
		for i := range a {
			s += a[i] * b[i]
		}
		return s
	}

	t.Run("OneVectorPerInput", func(t *testing.T) {
		res, err := c.Embed(ctx, &api.EmbedRequest{Model: "nomic-embed-text", Input: []string{"late train", "the train was late again", "cooked dinner"}})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := len(res.Embeddings), 3; got != want {
			t.Fatalf("%d embeddings, want %d", got, want)
		}
		if got, want := len(res.Embeddings[0]), 64; got != want {
			t.Errorf("%d dimensions, want %d", got, want)
		}
		if got := dot(res.Embeddings[0], res.Embeddings[0]); got < 0.999 || got > 1.001 {
			t.Errorf("squared length = %v, want 1", got)
		}
		if dot(res.Embeddings[0], res.Embeddings[1]) <= dot(res.Embeddings[0], res.Embeddings[2]) {
			t.Error("texts sharing words are not nearer than texts sharing none")
		}
		if got, want := res.PromptEvalCount, f.Calls()[0].PromptTokens; got != want || got == 0 {
			t.Errorf("prompt eval count = %d, recorded %d", got, want)
		}
	})
	t.Run("OneString", func(t *testing.T) {
		res, err := c.Embed(ctx, &api.EmbedRequest{Model: "nomic-embed-text", Input: "late train"})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := len(res.Embeddings), 1; got != want {
			t.Fatalf("%d embeddings, want %d", got, want)
		}
		if got, want := strings.Join(f.Calls()[1].Input, "|"), "late train"; got != want {
			t.Errorf("input = %q, want %q", got, want)
		}
	})
	t.Run("Scripted", func(t *testing.T) {
		f.OnEmbed(func(string) []float32 { return []float32{3, 4, 0} })
		defer f.OnEmbed(nil)
		res, err := c.Embed(ctx, &api.EmbedRequest{Model: "nomic-embed-text", Input: []string{"x"}})
		if err != nil {
			t.Fatal(err)
		}
		// Ollama normalises what the model returns.
		if got, want := res.Embeddings[0][1], float32(0.8); got != want {
			t.Errorf("second component = %v, want %v", got, want)
		}
	})
	t.Run("UnknownModel", func(t *testing.T) {
		_, err := c.Embed(ctx, &api.EmbedRequest{Model: "mxbai-embed-large", Input: "x"})
		var se api.StatusError
		if !errors.As(err, &se) || se.StatusCode != http.StatusNotFound {
			t.Fatalf("err = %#v, want a 404 api.StatusError", err)
		}
	})
	t.Run("Counted", func(t *testing.T) {
		st := f.Stats()
		if got, want := st.EmbedCalls, 4; got != want {
			t.Errorf("embed calls = %d, want %d", got, want)
		}
		if st.EmbedTokens == 0 || st.PromptTokens != 0 || st.ChatCalls != 0 {
			t.Errorf("stats = %+v, want embed tokens only", st)
		}
	})
}

func TestModels(t *testing.T) {
	t.Parallel()
	f := fakeollama.New(t)
	c := newClient(t, f, 2*time.Second)
	ctx := context.Background()

	t.Run("List", func(t *testing.T) {
		list, err := c.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, m := range list.Models {
			names = append(names, m.Name)
		}
		// Ollama lists every model with its tag.
		if got, want := strings.Join(names, " "), "qwen2.5:7b nomic-embed-text:latest"; got != want {
			t.Errorf("models = %q, want %q", got, want)
		}
	})
	t.Run("Show", func(t *testing.T) {
		for _, name := range []string{"qwen2.5:7b", "QWEN2.5:7B", "nomic-embed-text:latest"} {
			if _, err := c.Show(ctx, &api.ShowRequest{Model: name}); err != nil {
				t.Errorf("show %s: %v", name, err)
			}
		}
		show, err := c.Show(ctx, &api.ShowRequest{Model: "nomic-embed-text"})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := string(show.Capabilities[0]), "embedding"; got != want {
			t.Errorf("capability = %q, want %q", got, want)
		}
	})
	t.Run("ShowUnknown", func(t *testing.T) {
		_, err := c.Show(ctx, &api.ShowRequest{Model: "qwen2.5:14b"})
		var se api.StatusError
		if !errors.As(err, &se) || se.StatusCode != http.StatusNotFound {
			t.Fatalf("err = %#v, want a 404 api.StatusError", err)
		}
	})
	t.Run("SetModels", func(t *testing.T) {
		f.SetModels("llama3")
		defer f.SetModels(fakeollama.DefaultModels...)
		if _, err := c.Show(ctx, &api.ShowRequest{Model: "llama3:latest"}); err != nil {
			t.Errorf("show llama3:latest: %v", err)
		}
		if _, err := c.Show(ctx, &api.ShowRequest{Model: "qwen2.5:7b"}); err == nil {
			t.Error("a model no longer set is still shown")
		}
	})
	t.Run("Version", func(t *testing.T) {
		v, err := c.Version(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := v, "0.17.4"; got != want {
			t.Errorf("version = %q, want %q", got, want)
		}
	})
	t.Run("Heartbeat", func(t *testing.T) {
		if err := c.Heartbeat(ctx); err != nil {
			t.Fatal(err)
		}
	})
}

func TestCalls(t *testing.T) {
	t.Parallel()
	f := fakeollama.New(t)
	c := newClient(t, f, 2*time.Second)
	const workers = 8
	errs := make(chan error, 2*workers)
	for range workers {
		go func() {
			_, err := chat(c, request(nil))
			errs <- err
		}()
		go func() {
			_, err := c.Embed(context.Background(), &api.EmbedRequest{Model: "nomic-embed-text", Input: []string{"a", "b"}})
			errs <- err
		}()
	}
	for range 2 * workers {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}

	t.Run("Concurrent", func(t *testing.T) {
		st := f.Stats()
		if got, want := [2]int{st.ChatCalls, st.EmbedCalls}, [2]int{workers, workers}; got != want {
			t.Errorf("chat and embed calls = %v, want %v", got, want)
		}
		if got, want := len(f.Calls()), 2*workers; got != want {
			t.Errorf("%d calls recorded, want %d", got, want)
		}
	})
	t.Run("InOrder", func(t *testing.T) {
		f.Reset()
		if _, err := c.Embed(context.Background(), &api.EmbedRequest{Model: "nomic-embed-text", Input: "a"}); err != nil {
			t.Fatal(err)
		}
		if _, err := chat(c, request(nil)); err != nil {
			t.Fatal(err)
		}
		var paths []string
		for _, call := range f.Calls() {
			paths = append(paths, call.Path)
		}
		if got, want := strings.Join(paths, " "), "/api/embed /api/chat"; got != want {
			t.Errorf("calls = %q, want %q", got, want)
		}
	})
	t.Run("Reset", func(t *testing.T) {
		f.Reset()
		if got, want := f.Stats(), (fakeollama.Stats{}); got != want {
			t.Errorf("stats after Reset = %+v, want none", got)
		}
	})
}

func TestFault(t *testing.T) {
	t.Parallel()
	f := fakeollama.New(t)
	c := newClient(t, f, time.Second)
	ctx := context.Background()
	f.SetFault(fakeollama.LoadingModel())
	t.Run("ChatAndEmbedFail", func(t *testing.T) {
		_, err := chat(c, request(nil))
		var se api.StatusError
		if !errors.As(err, &se) || se.StatusCode != http.StatusInternalServerError || !strings.Contains(se.ErrorMessage, "loading model") {
			t.Fatalf("chat err = %v, want the 500 of a loading runner", err)
		}
		_, err = c.Embed(ctx, &api.EmbedRequest{Model: "nomic-embed-text", Input: "hello"})
		if !errors.As(err, &se) || se.StatusCode != http.StatusInternalServerError {
			t.Fatalf("embed err = %v, want a 500", err)
		}
	})
	t.Run("OtherRoutesAnswer", func(t *testing.T) {
		if v, err := c.Version(ctx); err != nil || v != fakeollama.Version {
			t.Fatalf("version = %q, %v", v, err)
		}
	})
	t.Run("Hang", func(t *testing.T) {
		f.SetFault(fakeollama.Reply{Delay: time.Minute})
		short := newClient(t, f, 100*time.Millisecond)
		if _, err := chat(short, request(nil)); err == nil {
			t.Fatal("a chat that hangs past the client's timeout succeeded")
		}
	})
	t.Run("Cleared", func(t *testing.T) {
		f.ClearFault()
		if _, err := chat(c, request(nil)); err != nil {
			t.Fatalf("chat after ClearFault: %v", err)
		}
	})
}
