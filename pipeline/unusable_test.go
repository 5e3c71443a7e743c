package pipeline_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/recur-journal/recur/internal/wait"
	"github.com/recur-journal/recur/pipeline/fakeollama"
	"github.com/recur-journal/recur/store"
)

// TestUnusableAnswersPause has the model answer prose instead of JSON to
// every call, a plain check included, while 20 entries are written: that
// is the model server's fault, so analysis pauses as in an outage (the
// pipeline reports failing calls, which makes the health check degraded),
// no entry fails, and once the model answers JSON again all 20 are
// processed.
func TestUnusableAnswersPause(t *testing.T) {
	t.Parallel()
	const captures = 20
	e := newEnv(t)
	ctx := context.Background()
	var prose atomic.Bool
	prose.Store(true)
	e.answerWith(func(string, *api.ChatRequest) (fakeollama.Reply, bool) {
		return fakeollama.Reply{Content: "Sure! The entry is about a late train and feeling annoyed."}, prose.Load()
	})
	e.start()
	var ids []string
	for i := range captures {
		ids = append(ids, e.capture([]string{"The train was late again. I was annoyed.", "A calm walk in the park."}[i%2]).ID)
	}

	var q store.QueueCounts
	var err error
	wait.Eventually(t, 10*time.Second, "analysis pauses while every answer is unusable", func() bool {
		if q, err = e.store.QueueCounts(ctx); err != nil {
			t.Fatal(err)
		}
		if q.Failed > 0 {
			t.Fatalf("an entry failed while the model answered nothing usable to anything: queue %+v", q)
		}
		out := e.pipe.Outage()
		return out.Failing && out.LastError != "" && e.pipe.Waiting()
	}, func() string { return fmt.Sprintf("outage %+v, queue %+v", e.pipe.Outage(), q) })
	// Some probes under the outage, all of them unusable too.
	calls := e.fake.Stats().ChatCalls
	wait.Eventually(t, 10*time.Second, "8 probe calls under the outage", func() bool { return e.fake.Stats().ChatCalls >= calls+8 },
		func() string { return fmt.Sprintf("%d probe calls", e.fake.Stats().ChatCalls-calls) })
	if q, err = e.store.QueueCounts(ctx); err != nil || q.Failed != 0 {
		t.Fatalf("after probes under the outage the queue is %+v (%v), want nothing failed", q, err)
	}

	prose.Store(false)
	for _, id := range ids {
		e.waitStatus(id, store.StatusProcessed)
	}
	if e.pipe.Waiting() {
		t.Error("the pipeline still waits after every entry was processed")
	}
}
