package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/recur-journal/recur/journal"
	"github.com/recur-journal/recur/pipeline"
	"github.com/recur-journal/recur/pipeline/detect"
	"github.com/recur-journal/recur/pipeline/fakeollama"
	"github.com/recur-journal/recur/pipeline/scripted"
	"github.com/recur-journal/recur/server"
	"github.com/recur-journal/recur/store/storetest"
)

// message is one Server-Sent Event as a client reads it.
type message struct {
	Event string
	Data  map[string]any
	Note  string // a comment line, without its colon
}

// stream is an open GET /api/captures/events as a real client reads it.
type stream struct {
	res  *http.Response
	msgs chan message
}

// openStream opens the event stream with token and reads it in the
// background until the test ends.
func openStream(t *testing.T, h *harness, token string) *stream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, "GET", h.srv.URL+"/api/captures/events", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Accept", "text/event-stream")
	res, err := (&http.Client{Transport: h.check}).Do(sentBy(req, t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Body.Close() })
	s := &stream{res: res, msgs: make(chan message, 256)}
	if res.StatusCode != http.StatusOK {
		return s
	}
	go func() {
		defer close(s.msgs)
		sc := bufio.NewScanner(res.Body)
		var m message
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if m.Event != "" {
					s.msgs <- m
				}
				m = message{}
			case strings.HasPrefix(line, ":"):
				s.msgs <- message{Note: strings.TrimSpace(line[1:])}
			case strings.HasPrefix(line, "event: "):
				m.Event = line[len("event: "):]
			case strings.HasPrefix(line, "data: "):
				if err := json.Unmarshal([]byte(line[len("data: "):]), &m.Data); err != nil {
					t.Errorf("data is not JSON: %q", line)
				}
			}
		}
	}()
	return s
}

// next returns the next message that keep accepts, or fails the test
// after a generous wait (a stuck stream, not a slow one).
func (s *stream) next(t *testing.T, keep func(message) bool) message {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case m, ok := <-s.msgs:
			if !ok {
				t.Fatal("the stream ended")
			}
			if keep(m) {
				return m
			}
		case <-deadline:
			t.Fatal("no such message arrived")
		}
	}
}

func isEvent(m message) bool { return m.Event != "" }

// liveHarness is the API over a real pipeline that a fake Ollama answers
// from the scripted lexicon, both telling one event broker.
func liveHarness(t *testing.T, heartbeat time.Duration) (*harness, *pipeline.Pipeline) {
	t.Helper()
	model := scriptedModel(t)
	events := journal.NewEvents()
	var pipe *pipeline.Pipeline
	h := newHarness(t, func(o *server.Options) {
		pipe = pipeline.New(pipeline.Options{Store: o.Store, Model: model, ModelName: "qwen2.5:7b", Workers: 2, Logger: o.Logger,
			Detector: detect.NewDetector(o.Store, nil), Watcher: events, Poll: 20 * time.Millisecond})
		o.Analyser, o.Events, o.Heartbeat = pipe, events, heartbeat
	})
	return h, pipe
}

// scriptedModel is a model client of a fake Ollama that answers from the
// scripted lexicon.
func scriptedModel(t *testing.T) pipeline.Model {
	t.Helper()
	fake := fakeollama.New(t)
	lex, err := scripted.Load("../pipeline/testdata/lexicon.json")
	if err != nil {
		t.Fatal(err)
	}
	fake.OnChat(func(req *api.ChatRequest) fakeollama.Reply { return fakeollama.Reply{Content: lex.Answer(req)} })
	model, err := pipeline.NewOllama(pipeline.OllamaOptions{URL: fake.URL(), Model: "qwen2.5:7b", EmbedModel: "nomic-embed-text", Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return model
}

// A capture written and analysed shows in its writer's stream as queued,
// processing and processed, in that order; a third day with the same
// trigger and feeling brings the pattern. Another user hears nothing of it.
func TestCaptureEvents(t *testing.T) {
	h, pipe := liveHarness(t, time.Hour)
	alice, bob := openStream(t, h, h.tokenA), openStream(t, h, h.tokenB)
	for _, s := range []*stream{alice, bob} {
		if got := s.res.Header.Get("Content-Type"); got != "text/event-stream" {
			t.Fatalf("Content-Type = %q", got)
		}
		s.next(t, func(m message) bool { return m.Note == "connected" })
	}
	// Written before the workers start, so that every queued comes first;
	// then each capture's statuses come in order (one user's runs go one
	// at a time).
	const text = "My boss criticised my report in front of the team. I felt anxious all afternoon and skipped lunch."
	var ids []string
	for day := 3; day >= 1; day-- {
		when := h.store.Now().AddDate(0, 0, -day).Format(time.RFC3339)
		res := h.do("POST", "/api/captures", h.tokenA, map[string]string{"text": text, "occurred_at": when})
		if res.Status != 201 {
			t.Fatalf("create: %d %s", res.Status, res.Body)
		}
		ids = append(ids, res.JSON(t)["data"].(map[string]any)["id"].(string))
	}
	if err := pipe.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pipe.Stop)
	// The pattern's event may come before the last entry's processed:
	// a detection run that began after the second entry may already count
	// the third, committed meanwhile, before its worker reports it.
	seen := map[string][]string{}
	var pattern *message
	for n := 0; n < 3*len(ids); {
		m := alice.next(t, func(m message) bool { return m.Event == "capture" || m.Event == "pattern" })
		if m.Event == "pattern" {
			pattern = &m
			continue
		}
		n++
		id, _ := m.Data["id"].(string)
		seen[id] = append(seen[id], m.Data["status"].(string))
		if at, _ := m.Data["updated_at"].(string); !timestampRE.MatchString(at) {
			t.Fatalf("updated_at %q is not a timestamp", at)
		}
	}
	for _, id := range ids {
		if got, want := strings.Join(seen[id], " -> "), "queued -> processing -> processed"; got != want {
			t.Errorf("capture %s: %s, want %s", id, got, want)
		}
	}
	if pattern == nil {
		m := alice.next(t, func(m message) bool { return m.Event == "pattern" })
		pattern = &m
	}
	m := *pattern
	if m.Data["state"] != "open" || m.Data["kind"] == nil || m.Data["name"] == "" {
		t.Fatalf("pattern event %v", m.Data)
	}
	res := h.do("GET", fmt.Sprintf("/api/patterns/%s", m.Data["id"]), h.tokenA, nil)
	if res.Status != 200 || !strings.Contains(string(res.Body), fmt.Sprintf(`"name":%q`, m.Data["name"])) {
		t.Fatalf("the pattern of the event: %d %s", res.Status, res.Body)
	}

	// Bob's own capture reaches him, and it is the first event he gets.
	res = h.do("POST", "/api/captures", h.tokenB, map[string]string{"text": "It rained."})
	if res.Status != 201 {
		t.Fatalf("create: %d %s", res.Status, res.Body)
	}
	if got := bob.next(t, isEvent); got.Data["id"] != res.JSON(t)["data"].(map[string]any)["id"] {
		t.Fatalf("bob's first event is %v, not about his capture", got.Data)
	}
}

func TestCaptureEventsStream(t *testing.T) {
	h, _ := liveHarness(t, 20*time.Millisecond)
	t.Run("Heartbeat", func(t *testing.T) {
		s := openStream(t, h, h.tokenA)
		s.next(t, func(m message) bool { return m.Note == "heartbeat" })
	})
	h.run([]scenario{
		{name: "ErrNoToken", method: "GET", path: "/api/captures/events", status: 401},
		{name: "ErrScope", method: "GET", path: "/api/captures/events", token: storetest.MustCreateToken(t, h.store, h.alice.ID, "patterns:read"), status: 403,
			contains: []string{`{"message":"This token lacks the captures:read scope."}`}},
	})
	t.Run("ErrTooMany", func(t *testing.T) {
		for range journal.MaxSubscribers - 1 {
			openStream(t, h, h.tokenB)
		}
		last := openStream(t, h, h.tokenB)
		if last.res.StatusCode != http.StatusOK {
			t.Fatalf("stream %d: %d", journal.MaxSubscribers, last.res.StatusCode)
		}
		over := openStream(t, h, h.tokenB)
		if over.res.StatusCode != http.StatusTooManyRequests || over.res.Header.Get("Retry-After") == "" {
			t.Fatalf("stream %d: %d, want 429 with Retry-After", journal.MaxSubscribers+1, over.res.StatusCode)
		}
	})
}

// Shutting the server down ends open streams at once rather than waiting
// for them.
func TestCaptureEventsEndOnShutdown(t *testing.T) {
	h := newHarness(t, func(o *server.Options) { o.Events = journal.NewEvents() })
	s := openStream(t, h, h.tokenA)
	s.next(t, func(m message) bool { return m.Note == "connected" })
	h.srv.Config.RegisterOnShutdown(h.api.EndStreams)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := h.srv.Config.Shutdown(ctx); err != nil {
		t.Fatalf("shutdown waited for the stream: %v", err)
	}
	for range s.msgs { // drained: the stream ended
	}
}
