package cli

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/recur-journal/recur/pipeline/fakeollama"
	"github.com/recur-journal/recur/server/openapitest"
)

// TestHealthPoolEndpoints checks that the detailed health check, the
// pages' banner and the owner's /metrics show each model server of a pool
// with its state, and that the pool as a whole still works while one of
// them is stopped.
func TestHealthPoolEndpoints(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	first, second := fakeollama.New(t), fakeollama.New(t)
	for _, f := range []*fakeollama.Server{first, second} {
		f.OnChat(func(*api.ChatRequest) fakeollama.Reply { return fakeollama.Reply{Content: `{"ok": true}`} })
	}
	m := NewMain()
	m.Stdout, m.Stderr = io.Discard, io.Discard
	m.Env = []string{"RECUR_STORAGE_DATA_DIR=" + dir, "RECUR_SERVER_ADDR=127.0.0.1:0",
		"RECUR_MODEL_URL=" + first.URL() + ", " + second.URL(), "RECUR_MODEL_WORKERS=3"}
	if err := m.ParseFlags([]string{"serve"}); err != nil {
		t.Fatal(err)
	}
	if err := m.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	base := "http://" + m.Addr() + "/api"

	if _, _, err := run(t, dir, "a long password\n", "user", "add", "me@example.com", "--password-stdin"); err != nil {
		t.Fatal(err)
	}
	token, _, err := run(t, dir, "", "token", "create", "me@example.com", "--scopes", "metrics:read", "--expires", "1h")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := http.Get(base + "/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	spec, _ := io.ReadAll(doc.Body)
	doc.Body.Close()
	client := apiClient{T: t, Base: base, Token: strings.TrimSpace(token), HTTP: &http.Client{Transport: openapitest.New(t, spec)}}
	endpoints := func() (map[string]any, []any) {
		t.Helper()
		status, body := client.Do("GET", "/health-check", "")
		if status != 200 {
			t.Fatalf("health check = %d %v", status, body)
		}
		ollama := body["data"].(map[string]any)["ollama"].(map[string]any)
		list, _ := ollama["endpoints"].([]any)
		if len(list) != 2 {
			t.Fatalf("ollama health %v; want 2 endpoints", ollama)
		}
		return ollama, list
	}

	_, list := endpoints()
	for i, url := range []string{first.URL(), second.URL()} {
		e := list[i].(map[string]any)
		if e["url"] != url || e["ok"] != true || e["slots"] != 3.0 || e["in_flight"] != 0.0 || e["paused_until"] != nil {
			t.Errorf("endpoint %d = %v; want %s working, 3 slots, idle, not paused", i, e, url)
		}
	}

	first.Down()
	ollama, list := endpoints()
	if e := list[0].(map[string]any); e["ok"] != false || e["error"] == nil {
		t.Errorf("stopped endpoint = %v; want not ok with its error", e)
	}
	if e := list[1].(map[string]any); e["ok"] != true {
		t.Errorf("working endpoint = %v; want ok", e)
	}
	if ollama["ok"] != true {
		t.Errorf("ollama health %v; want the pool ok while one server works", ollama)
	}

	// The pages say one server does not work, and list both.
	session := signIn(t, base, "me@example.com", "a long password")
	res, err := session.HTTP.Get("http://" + m.Addr() + "/")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	for _, want := range []string{`data-testid="ollama-banner"`, "1 of the 2 model servers does not work",
		`data-endpoint="` + first.URL() + `" data-up="false"`, `data-endpoint="` + second.URL() + `" data-up="true"`} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the journal page lacks %s:\n%s", want, page)
		}
	}

	// /metrics, for the owner, has a gauge per server.
	_, series, body := getMetrics(t, http.DefaultClient, "http://"+m.Addr()+"/metrics", strings.TrimSpace(token))
	for url, want := range map[string]float64{first.URL(): 0, second.URL(): 1} {
		if got, ok := series[`recur_model_endpoint_up{endpoint="`+url+`"}`]; !ok || got != want {
			t.Errorf("recur_model_endpoint_up for %s = %v (present %v), want %v:\n%s", url, got, ok, want, body)
		}
		if got := series[`recur_model_endpoint_slots{endpoint="`+url+`"}`]; got != 3 {
			t.Errorf("recur_model_endpoint_slots for %s = %v, want 3", url, got)
		}
	}
}
