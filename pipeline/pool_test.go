package pipeline_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/recur-journal/recur/internal/wait"
	"github.com/recur-journal/recur/pipeline"
	"github.com/recur-journal/recur/pipeline/fakeollama"
	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

// TestPool runs captures of several users through a pool of two model
// servers: both take calls; with one stopped, nothing fails or waits; with
// both stopped, captures stay queued until one comes back.
func TestPool(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	second := fakeollama.New(t)
	second.OnChat(func(req *api.ChatRequest) fakeollama.Reply { return fakeollama.Reply{Content: e.lex.Answer(req)} })
	var providers []pipeline.Provider
	urls := []string{e.fake.URL(), second.URL()}
	for _, u := range urls {
		p, err := pipeline.NewProvider(pipeline.ModelOptions{URL: u, Model: "qwen2.5:7b", EmbedModel: "nomic-embed-text", Timeout: 2 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		providers = append(providers, p)
	}
	pool := pipeline.NewPool(urls, providers, 2, 20*time.Millisecond, 100*time.Millisecond, discard())
	e.pipe = e.newPipeline(func(o *pipeline.Options) { o.Model, o.Workers = pool, 4 })
	e.start()
	ctx := context.Background()
	users := make([]*store.User, 4)
	for i := range users {
		users[i] = storetest.MustCreateUser(t, e.store, fmt.Sprintf("writer%d@example.com", i))
	}
	// write posts one entry for each user and waits until all are processed.
	round := 0
	write := func(before func()) {
		t.Helper()
		round++
		var ids []string
		for _, u := range users {
			c := &store.Capture{UserID: u.ID, Original: fmt.Sprintf("Round %d. My boss criticised my report. I felt anxious.", round)}
			if err := e.store.CreateCapture(ctx, c); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, c.ID)
		}
		e.pipe.Notify()
		if before != nil {
			before()
		}
		for i, id := range ids {
			e.user = users[i]
			e.waitStatus(id, store.StatusProcessed)
		}
	}

	write(nil)
	if a, b := e.fake.Stats().ChatCalls, second.Stats().ChatCalls; a == 0 || b == 0 {
		t.Fatalf("chat calls %d and %d; want both servers to take calls", a, b)
	}

	e.fake.Down()
	before := second.Stats().ChatCalls
	write(nil)
	if second.Stats().ChatCalls == before {
		t.Fatal("with one server stopped, the other took no call")
	}
	if q, _ := e.store.QueueCounts(ctx); q.Failed != 0 {
		t.Fatalf("%d captures failed while one server answered", q.Failed)
	}

	second.Down()
	write(func() {
		wait.Eventually(t, 10*time.Second, "the pipeline waits with both servers stopped", e.pipe.Waiting,
			func() string { return fmt.Sprintf("outage %+v", e.pipe.Outage()) })
		// The runs that met the outage hand their captures back to the
		// queue as they end: wait for that, and for none to fail.
		var q store.QueueCounts
		wait.Eventually(t, 10*time.Second, "captures back in the queue with both servers stopped", func() bool {
			q, _ = e.store.QueueCounts(ctx)
			return q.Failed != 0 || q.Queued > 0
		}, func() string { return fmt.Sprintf("queue %+v", q) })
		if q.Failed != 0 {
			t.Fatalf("queue %+v with both servers stopped; want captures queued and none failed", q)
		}
		second.Up()
	})
	if q, _ := e.store.QueueCounts(ctx); q.Failed != 0 {
		t.Fatalf("queue %+v; want none failed", q)
	}
}

// TestPoolEndpointStates checks what the detailed health check shows of a
// pool: each server's state, the one whose call failed paused, and the
// calls each is answering.
func TestPoolEndpointStates(t *testing.T) {
	t.Parallel()
	first, second := fakeollama.New(t), fakeollama.New(t)
	urls := []string{first.URL(), second.URL()}
	var providers []pipeline.Provider
	for _, u := range urls {
		p, err := pipeline.NewProvider(pipeline.ModelOptions{URL: u, Model: "qwen2.5:7b", EmbedModel: "nomic-embed-text", Timeout: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		providers = append(providers, p)
	}
	pool := pipeline.NewPool(urls, providers, 2, time.Minute, time.Hour, discard())
	ctx := context.Background()

	first.Down()
	if _, err := pool.Chat(ctx, pipeline.ChatRequest{System: "s", User: "u"}); err != nil {
		t.Fatalf("chat with one server up: %v", err)
	}
	before := time.Now()
	st, states := pool.CheckEach(ctx)
	if st.Problem != "" || len(states) != 2 {
		t.Fatalf("pool %+v with %d states; want no problem and 2 states", st, len(states))
	}
	if s := states[0]; s.URL != first.URL() || s.Problem == "" || !s.PausedUntil.After(before) || s.Slots != 2 {
		t.Errorf("stopped server's state %+v; want its problem and a pause after %v", s, before)
	}
	if s := states[1]; s.URL != second.URL() || s.Problem != "" || !s.PausedUntil.IsZero() || s.InFlight != 0 {
		t.Errorf("working server's state %+v; want no problem, no pause, nothing in flight", s)
	}

	// A call the second server holds shows as in flight.
	release := make(chan struct{})
	second.OnChat(func(*api.ChatRequest) fakeollama.Reply {
		<-release
		return fakeollama.Reply{Content: "{}"}
	})
	done := make(chan error, 1)
	go func() {
		_, err := pool.Chat(ctx, pipeline.ChatRequest{System: "s", User: "u"})
		done <- err
	}()
	var seen []pipeline.EndpointState
	inFlight := wait.Poll(5*time.Second, func() bool {
		_, seen = pool.CheckEach(ctx)
		return seen[1].InFlight == 1
	})
	close(release)
	if !inFlight {
		t.Fatalf("no call in flight after 5s: %+v", seen)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, seen = pool.CheckEach(ctx); seen[1].InFlight != 0 {
		t.Errorf("in flight after the call ended: %+v", seen[1])
	}
}
