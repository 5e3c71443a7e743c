package pipeline_test

import (
	"context"
	"fmt"
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

const (
	scalingUsers    = 16                     // users with captures queued
	scalingCaptures = 2                      // captures queued per user
	scalingDelay    = 200 * time.Millisecond // each stand-in server's time per chat call
	scalingSlots    = 2                      // calls at once per endpoint ([model] workers)
)

// BenchmarkPoolScaling analyses many users' queued captures through a pool
// of 1, 2 and 4 stand-in model servers, each answering a chat call after a
// fixed delay, so the servers and not Recur are what limits throughput. It
// reports captures per minute and, beside 2 and 4 endpoints, that figure
// over the linear one (n times the figure of one endpoint): 1 is linear.
func BenchmarkPoolScaling(b *testing.B) {
	lex, err := scripted.Load("testdata/lexicon.json")
	if err != nil {
		b.Fatal(err)
	}
	var one float64 // captures per minute with one endpoint
	for _, n := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("endpoints=%d", n), func(b *testing.B) {
			pool := scalingPool(b, lex, n)
			var elapsed time.Duration
			captures := 0
			for i := 0; i < b.N; i++ {
				elapsed += scalingRun(b, pool, n*scalingSlots)
				captures += scalingUsers * scalingCaptures
			}
			perMinute := float64(captures) / elapsed.Minutes()
			b.ReportMetric(perMinute, "captures/min")
			if n == 1 {
				one = perMinute
			} else if one > 0 {
				b.ReportMetric(perMinute/(float64(n)*one), "of_linear")
			}
		})
	}
}

// scalingPool starts n stand-in servers answering from lex after
// scalingDelay and returns a pool of them.
func scalingPool(b *testing.B, lex *scripted.Lexicon, n int) *pipeline.Pool {
	var urls []string
	var providers []pipeline.Provider
	for range n {
		fake := fakeollama.New(b)
		fake.OnChat(func(req *api.ChatRequest) fakeollama.Reply {
			return fakeollama.Reply{Content: lex.Answer(req), Delay: scalingDelay}
		})
		p, err := pipeline.NewProvider(pipeline.ModelOptions{URL: fake.URL(), Model: "qwen2.5:7b", EmbedModel: "nomic-embed-text", Timeout: 30 * time.Second})
		if err != nil {
			b.Fatal(err)
		}
		urls, providers = append(urls, fake.URL()), append(providers, p)
	}
	return pipeline.NewPool(urls, providers, scalingSlots, time.Second, time.Minute, discard())
}

// scalingRun queues the users' captures in a new store, runs a pipeline of
// workers over the pool until none is left, and returns how long that took.
func scalingRun(b *testing.B, pool *pipeline.Pool, workers int) time.Duration {
	b.StopTimer()
	defer b.StartTimer()
	ctx := context.Background()
	s := storetest.MustOpenAt(b, filepath.Join(b.TempDir(), "recur.db"), nil)
	for u := range scalingUsers {
		user := storetest.MustCreateUser(b, s, fmt.Sprintf("writer%d@example.com", u))
		for c := range scalingCaptures {
			capture := &store.Capture{UserID: user.ID, Original: fmt.Sprintf("Entry %d. My boss criticised my report. I felt anxious.", c)}
			if err := s.CreateCapture(ctx, capture); err != nil {
				b.Fatal(err)
			}
		}
	}
	p := pipeline.New(pipeline.Options{Store: s, Model: pool, ModelName: "qwen2.5:7b", Workers: workers,
		Logger: discard(), Poll: 5 * time.Millisecond})
	b.StartTimer()
	start := time.Now()
	if err := p.Start(ctx); err != nil {
		b.Fatal(err)
	}
	deadline := start.Add(5 * time.Minute)
	for {
		q, err := s.QueueCounts(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if q.Queued+q.Processing == 0 {
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("captures still waiting after 5 minutes: %+v", q)
		}
		time.Sleep(5 * time.Millisecond)
	}
	elapsed := time.Since(start)
	b.StopTimer()
	p.Stop()
	if q, _ := s.QueueCounts(ctx); q.Failed != 0 {
		b.Fatalf("%d captures failed", q.Failed)
	}
	return elapsed
}
