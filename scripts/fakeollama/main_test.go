package main

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"
)

// With no flags but where to listen, the stand-in answers its first model
// call at once, so an entry written while trying Recur is analysed at once.
func TestDefaultsAnswerAtOnce(t *testing.T) {
	cfg, err := parseFlags([]string{"-addr", "127.0.0.1:0", "-lexicon", "../../pipeline/testdata/lexicon.json"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.failFor != 0 {
		t.Errorf("-fail-for defaults to %v, want 0", cfg.failFor)
	}
	ctx, cancel := context.WithCancel(context.Background())
	urls := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), func(u string) { urls <- u })
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	var url string
	select {
	case url = <-urls:
	case err := <-done:
		t.Fatalf("the stand-in stopped before listening: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("the stand-in did not listen within 10s")
	}
	res, err := http.Post(url+"/api/chat", "application/json",
		strings.NewReader(`{"model":"qwen2.5:7b","messages":[{"role":"user","content":"A walk by the river."}],"stream":false}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Errorf("the first chat answered %d %s, want 200", res.StatusCode, body)
	}
}
