package pipeline_test

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/recur-journal/recur/internal/wait"
	"github.com/recur-journal/recur/pipeline"
	"github.com/recur-journal/recur/pipeline/fakeollama"
	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

// countingModel counts the calls a pipeline makes, reached or not.
type countingModel struct {
	pipeline.Model
	calls atomic.Int64
}

func (m *countingModel) Chat(ctx context.Context, req pipeline.ChatRequest) (pipeline.ChatResult, error) {
	m.calls.Add(1)
	return m.Model.Chat(ctx, req)
}

func (m *countingModel) Embed(ctx context.Context, inputs []string) ([][]float32, error) {
	m.calls.Add(1)
	return m.Model.Embed(ctx, inputs)
}

// logCounter is a slog handler that counts the records written.
type logCounter struct {
	mu      sync.Mutex
	records []slog.Record
}

func (h *logCounter) Enabled(context.Context, slog.Level) bool { return true }
func (h *logCounter) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *logCounter) WithGroup(string) slog.Handler            { return h }
func (h *logCounter) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.records = append(h.records, r)
	return nil
}

// said reports whether a record with the message was written.
func (h *logCounter) said(msg string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.ContainsFunc(h.records, func(r slog.Record) bool { return r.Message == msg })
}

// String lists the messages written, one a line.
func (h *logCounter) String() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var b strings.Builder
	for _, r := range h.records {
		fmt.Fprintf(&b, "%s %s\n", r.Level, r.Message)
	}
	return b.String()
}

// since returns the records of level info or above from the n-th on.
func (h *logCounter) since(n int) []slog.Record {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []slog.Record
	for _, r := range h.records[n:] {
		if r.Level >= slog.LevelInfo {
			out = append(out, r)
		}
	}
	return out
}

// maxSteps bounds how many backoff steps fit in d: each step waits at least
// three quarters of base doubled per step, capped at most.
func maxSteps(d, base, most time.Duration) int {
	n := 1 // the steps begin at once
	for wait, spent := base, time.Duration(0); ; n++ {
		spent += wait * 3 / 4
		if spent > d {
			return n
		}
		wait = min(2*wait, most)
	}
}

// TestOutage keeps Ollama failing in each way a server fails while 40
// captures are posted, then lets it recover: every capture ends processed,
// none failed, and while it failed the calls and the log lines were bounded
// by the backoff steps, not by the captures. The backoff runs on a clock
// the test moves, a little at a time, once every worker waits for it.
func TestOutage(t *testing.T) {
	t.Parallel()
	const (
		captures = 40 // well above the calls the backoff allows in failFor
		users    = 4
		workers  = 4
		base     = 10 * time.Millisecond
		most     = 80 * time.Millisecond
		failFor  = 300 * time.Millisecond // on the test's clock
		tick     = base / 2               // how far the clock moves at a time
	)
	texts := []string{
		"The train was late again on my commute. I was frustrated and annoyed.",
		"My boss criticised my report in front of the team. I felt anxious all afternoon and skipped lunch.",
		"After work I went for a run in the park. I felt calm and proud of myself.",
	}
	cutShort := `{"model":"qwen2.5:7b","created_at":"2026-11-23T08:00:00Z","message":{"role":"assistant","content":"{\"situ"},"done":false}` + "\n"
	fault := func(r fakeollama.Reply) func(*fakeollama.Server) {
		return func(s *fakeollama.Server) { s.SetFault(r) }
	}
	clear := (*fakeollama.Server).ClearFault
	for _, f := range []struct {
		name        string
		break_, fix func(*fakeollama.Server)
		timeout     time.Duration // of one call
	}{
		{"ServerError", fault(fakeollama.Reply{Status: 500, Error: "model runner crashed"}), clear, 2 * time.Second},
		{"LoadingModel", fault(fakeollama.LoadingModel()), clear, 2 * time.Second},
		{"Busy", fault(fakeollama.ServerBusy()), clear, 2 * time.Second},
		{"Hang", fault(fakeollama.Reply{Delay: time.Minute}), clear, 100 * time.Millisecond},
		{"CutShort", fault(fakeollama.Reply{Raw: cutShort}), clear, 2 * time.Second},
		{"Refused", (*fakeollama.Server).Down, (*fakeollama.Server).Up, 2 * time.Second},
	} {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			logs := &logCounter{}
			clock := newHandClock(time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC))
			var model *countingModel
			e := newEnv(t)
			e.pipe = e.newPipeline(func(o *pipeline.Options) {
				ollama, err := pipeline.NewOllama(pipeline.OllamaOptions{URL: e.fake.URL(), Model: "qwen2.5:7b",
					EmbedModel: "nomic-embed-text", Timeout: f.timeout})
				if err != nil {
					t.Fatal(err)
				}
				model = &countingModel{Model: ollama}
				o.Model, o.Logger, o.Workers, o.Backoff, o.MaxBackoff, o.Clock = model, slog.New(logs), workers, base, most, clock
			})
			ctx := context.Background()
			owners := []*store.User{e.user}
			for i := 1; i < users; i++ {
				owners = append(owners, storetest.MustCreateUser(t, e.store, fmt.Sprintf("writer%d@example.com", i)))
			}
			queue := func() store.QueueCounts {
				q, err := e.store.QueueCounts(ctx)
				if err != nil {
					t.Fatal(err)
				}
				return q
			}
			// All the workers wait for the clock: the runs under way when
			// calls began to fail, or the probe, have ended.
			settled := func(what string) {
				t.Helper()
				wait.Eventually(t, 5*time.Second, what, func() bool { return clock.Sleeping() == workers },
					func() string {
						return fmt.Sprintf("%d of %d workers wait for the clock; %d calls; queue %+v", clock.Sleeping(), workers, model.calls.Load(), queue())
					})
			}

			f.break_(e.fake)
			e.start()
			for i := range captures {
				c := &store.Capture{UserID: owners[i%users].ID, Original: texts[i%len(texts)]}
				if err := e.store.CreateCapture(ctx, c); err != nil {
					t.Fatal(err)
				}
				e.pipe.Notify()
			}
			settled("every worker waits for the first probe")
			began := clock.Now()
			for clock.Now().Sub(began) < failFor {
				clock.Advance(tick)
				settled(fmt.Sprintf("every worker waits again %v into the outage", clock.Now().Sub(began)))
			}
			out, q := e.pipe.Outage(), queue()
			calls, lines := model.calls.Load(), logs.since(0)
			failedFor := clock.Now().Sub(began)
			f.fix(e.fake)

			t.Run("Paused", func(t *testing.T) {
				if !out.Failing || !out.Since.Equal(began) || out.LastError == "" {
					t.Errorf("while calls failed the pipeline reported %+v, want failing since %v", out, began)
				}
				if q.Failed != 0 || q.Queued != captures {
					t.Errorf("while calls failed the queue was %+v, want all %d queued", q, captures)
				}
			})
			steps := maxSteps(failedFor, base, most)
			t.Logf("failing for %v: %d calls, %d log lines, at most %d backoff steps", failedFor, calls, len(lines), steps)
			t.Run("CallsBoundedBySteps", func(t *testing.T) {
				// The runs in flight when the outage began, then one probe a step.
				if limit := int64(workers + steps); calls > limit || limit >= captures {
					t.Errorf("%d calls while Ollama failed for %v; want at most %d (%d workers and %d backoff steps)",
						calls, failedFor, limit, workers, steps)
				}
			})
			t.Run("LogLinesBoundedBySteps", func(t *testing.T) {
				if len(lines) == 0 || len(lines) > steps {
					t.Errorf("%d log lines while Ollama failed for %v, want one to %d (one a step at most)", len(lines), failedFor, steps)
				}
				if len(lines) > 0 && lines[0].Level != slog.LevelWarn {
					t.Errorf("the outage began with %v %q, want a warning", lines[0].Level, lines[0].Message)
				}
			})

			// Recovered, the next probe is due at most a capped step on.
			wait.Eventually(t, time.Minute, "every capture ends after Ollama recovered", func() bool {
				clock.Advance(most)
				q := queue()
				return q.Failed > 0 || q.Queued+q.Processing == 0
			}, func() string { return fmt.Sprintf("queue %+v", queue()) })
			if q := queue(); q.Failed != 0 || q.Queued+q.Processing != 0 {
				t.Fatalf("queue %+v after Ollama recovered; want all %d processed: an outage must fail nothing", q, captures)
			}
			if e.pipe.Waiting() {
				t.Error("the pipeline still says calls fail after all were processed")
			}
			ended := false
			for _, r := range logs.since(0) {
				r.Attrs(func(a slog.Attr) bool {
					ended = ended || a.Key == "outage"
					return true
				})
			}
			if !ended {
				t.Error("no log line said the outage ended and how long it lasted")
			}
		})
	}
}
