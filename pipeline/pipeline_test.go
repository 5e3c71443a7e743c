package pipeline_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/recur-journal/recur/internal/wait"
	"github.com/recur-journal/recur/pipeline"
	"github.com/recur-journal/recur/pipeline/fakeollama"
	"github.com/recur-journal/recur/pipeline/scripted"
	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

// env is a store, a fake Ollama answering from the lexicon, and a pipeline.
type env struct {
	t     *testing.T
	store *store.Store
	fake  *fakeollama.Server
	lex   *scripted.Lexicon
	user  *store.User
	pipe  *pipeline.Pipeline
}

func newEnv(t *testing.T, configure ...func(*pipeline.Options)) *env {
	t.Helper()
	e := &env{t: t, store: storetest.MustOpen(t), fake: fakeollama.New(t)}
	lex, err := scripted.Load("testdata/lexicon.json")
	if err != nil {
		t.Fatal(err)
	}
	e.lex = lex
	e.answerWith(nil)
	e.user = storetest.MustCreateUser(t, e.store, "writer@example.com")
	e.pipe = e.newPipeline(configure...)
	return e
}

// answerWith scripts the fake: fault decides, per request, a reply that
// replaces the lexicon's answer (return ok false to answer normally).
func (e *env) answerWith(fault func(step string, req *api.ChatRequest) (fakeollama.Reply, bool)) {
	e.fake.OnChat(func(req *api.ChatRequest) fakeollama.Reply {
		if fault != nil {
			if r, ok := fault(scripted.Step(req), req); ok {
				return r
			}
		}
		return fakeollama.Reply{Content: e.lex.Answer(req)}
	})
}

func (e *env) newPipeline(configure ...func(*pipeline.Options)) *pipeline.Pipeline {
	model, err := pipeline.NewOllama(pipeline.OllamaOptions{URL: e.fake.URL(), Model: "qwen2.5:7b", EmbedModel: "nomic-embed-text", Timeout: 2 * time.Second})
	if err != nil {
		e.t.Fatal(err)
	}
	opts := pipeline.Options{Store: e.store, Model: model, ModelName: "qwen2.5:7b", Workers: 2,
		Logger: discard(),
		Poll:   10 * time.Millisecond, Backoff: 20 * time.Millisecond, MaxBackoff: 100 * time.Millisecond}
	for _, f := range configure {
		f(&opts)
	}
	return pipeline.New(opts)
}

// timeout has the pipeline's calls to the fake time out after d.
func (e *env) timeout(d time.Duration) func(*pipeline.Options) {
	return func(o *pipeline.Options) {
		model, err := pipeline.NewOllama(pipeline.OllamaOptions{URL: e.fake.URL(), Model: "qwen2.5:7b", EmbedModel: "nomic-embed-text", Timeout: d})
		if err != nil {
			e.t.Fatal(err)
		}
		o.Model = model
	}
}

// start runs the workers until the test ends.
func (e *env) start() {
	if err := e.pipe.Start(context.Background()); err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(e.pipe.Stop)
}

func (e *env) capture(text string) *store.Capture {
	e.t.Helper()
	c := &store.Capture{UserID: e.user.ID, Original: text}
	if err := e.store.CreateCapture(context.Background(), c); err != nil {
		e.t.Fatal(err)
	}
	e.pipe.Notify()
	return c
}

// waitStatus waits, boundedly, until the capture has the status.
// failsExtracting posts text and checks that, extract's answers being
// unusable, the capture fails after the first try and two retries, keeping
// its text and nothing else.
func (e *env) failsExtracting(text string) *store.Capture {
	e.t.Helper()
	c := e.waitStatus(e.capture(text).ID, store.StatusFailed)
	if c.Original != text || len(c.Segments) != 0 {
		e.t.Fatalf("failed capture kept %q and %d segments; want its text only", c.Original, len(c.Segments))
	}
	extracts := 0
	for _, call := range e.fake.Calls() {
		if call.Request != nil && extracting(scripted.Step(call.Request)) {
			extracts++
		}
	}
	if extracts != 3 {
		e.t.Fatalf("extract was asked %d times, want 3 (the first try and two retries)", extracts)
	}
	tags, err := e.store.Tags(context.Background(), e.user.ID, store.TagTypes...)
	if err != nil {
		e.t.Fatal(err)
	}
	if len(tags) != 0 {
		e.t.Fatalf("a failed run left %d tags, want none", len(tags))
	}
	return c
}

func (e *env) waitStatus(id string, status store.CaptureStatus) *store.Capture {
	e.t.Helper()
	var c *store.Capture
	// A bound only: an entry read against hundreds of names on a loaded
	// machine takes seconds, and none ever needs this long.
	wait.Eventually(e.t, 30*time.Second, fmt.Sprintf("capture %s %s", id, status), func() bool {
		var err error
		if c, err = e.store.FindCapture(context.Background(), e.user.ID, id); err != nil {
			e.t.Fatal(err)
		}
		return c.Status == status
	}, func() string { return fmt.Sprintf("it is %s", c.Status) })
	return c
}

func tagNames(c *store.Capture, typ store.TagType) []string {
	var out []string
	for _, sg := range c.Segments {
		for _, t := range sg.Tags {
			if t.Type == typ {
				out = append(out, t.Name)
			}
		}
	}
	return out
}

func TestRun(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.start()
	ctx := context.Background()
	const text = "My boss criticised my report in front of the team. I felt anxious all afternoon and skipped lunch. " +
		"It rained. After work I went for a run in the park. I felt calm and proud of myself."

	first := e.waitStatus(e.capture(text).ID, store.StatusProcessed)
	t.Run("SegmentsVerbatim", func(t *testing.T) {
		if got, want := len(first.Segments), 2; got != want {
			t.Fatalf("%d segments, want %d", got, want)
		}
		if first.Translated != text || first.Language != "en" {
			t.Fatalf("English text changed: %q (%s)", first.Translated, first.Language)
		}
		want := []string{
			"My boss criticised my report in front of the team. I felt anxious all afternoon and skipped lunch.",
			"After work I went for a run in the park. I felt calm and proud of myself.",
		}
		for i, sg := range first.Segments {
			if sg.Text != want[i] || first.Translated[sg.Start:sg.End] != sg.Text {
				t.Errorf("segment %d = %q [%d,%d), want the verbatim slice %q", i, sg.Text, sg.Start, sg.End, want[i])
			}
		}
	})
	t.Run("TagsStored", func(t *testing.T) {
		for typ, want := range map[store.TagType]string{
			store.TagTrigger: "criticism from my boss", store.TagNegativeFeeling: "anxious", store.TagBadBehaviour: "skipped lunch",
			store.TagGoodBehaviour: "went for a run", store.TagPositiveFeeling: "calm", store.TagPerson: "my boss", store.TagLocation: "the park",
		} {
			if got := tagNames(first, typ); !contains(got, want) {
				t.Errorf("%s tags = %v, want %q among them", typ, got, want)
			}
		}
		for _, sg := range first.Segments {
			for _, tg := range sg.Tags {
				if store.Categorised(tg.Type) != (tg.Category != nil) {
					t.Errorf("tag %s %q has category %v", tg.Type, tg.Name, tg.Category)
				}
			}
		}
	})
	t.Run("CategoriesReused", func(t *testing.T) {
		second := e.waitStatus(e.capture("The boss shouted about the deadline again. I was stressed and ate a whole bag of crisps.").ID, store.StatusProcessed)
		cat := func(c *store.Capture, typ store.TagType) *store.Category {
			for _, sg := range c.Segments {
				for _, tg := range sg.Tags {
					if tg.Type == typ {
						return tg.Category
					}
				}
			}
			t.Fatalf("no %s tag in %q", typ, c.Original)
			return nil
		}
		a, b := cat(first, store.TagTrigger), cat(second, store.TagTrigger)
		if a.ID != b.ID || a.Name != "criticism at work" {
			t.Fatalf("second capture's trigger in category %+v, want the first's %+v", b, a)
		}
		cats, err := e.store.Categories(ctx, e.user.ID, store.TagTrigger)
		if err != nil || len(cats) != 1 {
			t.Fatalf("trigger categories = %v (%v), want one", cats, err)
		}
	})
	t.Run("Translated", func(t *testing.T) {
		const es = "Mi jefe criticó mi informe otra vez. Me sentí ansiosa y me salté el almuerzo."
		c := e.waitStatus(e.capture(es).ID, store.StatusProcessed)
		if c.Original != es || c.Language != "es" || !strings.HasPrefix(c.Translated, "My boss criticised my report again.") {
			t.Fatalf("capture = %q / %q (%s)", c.Original, c.Translated, c.Language)
		}
		if len(c.Segments) != 1 || c.Segments[0].Text != c.Translated {
			t.Fatalf("segments %+v, want one slice of the translation", c.Segments)
		}
		if got := tagNames(c, store.TagTrigger); !contains(got, "criticism from my boss") {
			t.Fatalf("triggers = %v", got)
		}
	})
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestCost(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	calls := func(c *store.Capture) int {
		tot, err := e.store.ModelCallTotals(ctx, []string{c.ID})
		if err != nil {
			t.Fatal(err)
		}
		return tot.Calls
	}
	run := func(text string) *store.Capture {
		c := e.capture(text)
		if ok, err := e.pipe.ProcessNext(ctx); !ok || err != nil {
			t.Fatalf("ProcessNext = %v, %v", ok, err)
		}
		return c
	}
	// Three situations or one: the same number of calls. A short entry's
	// situations are found and read in one call.
	many := run("My boss criticised my report. I skipped lunch. The train was late. I was frustrated. Mum called about Christmas. I snapped at her.")
	if got, want := calls(many), 2; got != want {
		t.Errorf("English capture with three situations made %d calls, want %d (segment_extract, categorise)", got, want)
	}
	one := run("My boss criticised my slides. I felt anxious and skipped lunch.")
	if got, want := calls(one), 1; got != want {
		t.Errorf("capture with only known triggers and behaviours made %d calls, want %d (segment_extract, no categorise)", got, want)
	}
	// A translation comes cut into its situations: no segment call.
	es := run("Mi jefe criticó mi informe otra vez. Me sentí ansiosa y me salté el almuerzo.")
	if got, want := calls(es), 2; got != want {
		t.Errorf("Spanish capture made %d calls, want %d (translate, extract)", got, want)
	}
	// A long entry is segmented first, then read situation by situation.
	long := run("Monday. Rain all day. My boss criticised my report. I felt anxious. I skipped lunch. The office was cold. " +
		"I read on the train. The train was late. I was frustrated. Home at last.")
	if got, want := calls(long), 2; got != want {
		t.Errorf("English capture of ten sentences made %d calls, want %d (segment, extract)", got, want)
	}
	tot, err := e.store.ModelCallTotals(ctx, []string{many.ID, one.ID, es.ID, long.ID})
	if err != nil {
		t.Fatal(err)
	}
	st := e.fake.Stats()
	if tot.PromptTokens != st.PromptTokens || tot.OutputTokens != st.OutputTokens || tot.PromptTokens == 0 {
		t.Errorf("recorded %d prompt and %d output tokens; the model counted %d and %d", tot.PromptTokens, tot.OutputTokens, st.PromptTokens, st.OutputTokens)
	}
	// The fixed part of each step's prompt is the same for every capture.
	systems := map[string]string{}
	for _, c := range e.fake.Calls() {
		if c.Request == nil {
			continue
		}
		step, sys := scripted.Step(c.Request), c.Request.Messages[0].Content
		if prev, ok := systems[step]; ok && prev != sys {
			t.Errorf("the %s system prompt changed between captures", step)
		}
		systems[step] = sys
		var opts struct {
			Temperature float64 `json:"temperature"`
		}
		b, _ := json.Marshal(c.Request.Options)
		json.Unmarshal(b, &opts)
		if opts.Temperature != 0 || len(c.Format) == 0 || !strings.Contains(sys, string(c.Format)) {
			t.Errorf("%s call: temperature %v, format %d bytes, schema in prompt %v", step, opts.Temperature, len(c.Format), strings.Contains(sys, string(c.Format)))
		}
	}
}

func TestFaults(t *testing.T) {
	t.Parallel()
	const text = "The train was late again on my commute. I was frustrated and annoyed."
	t.Run("Down", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		e.fake.Down()
		e.start()
		c := e.capture(text)
		wait.Eventually(t, 5*time.Second, "the pipeline notices Ollama is down", e.pipe.Waiting, nil)
		e.waitStatus(c.ID, store.StatusQueued)
		e.fake.Up()
		e.waitStatus(c.ID, store.StatusProcessed)
		if e.pipe.Waiting() {
			t.Fatal("still waiting after Ollama came back")
		}
	})
	t.Run("ModelMissing", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		e.fake.SetModels("llama3:8b")
		e.start()
		c := e.capture(text)
		wait.Eventually(t, 5*time.Second, "the pipeline notices the model is missing", e.pipe.Waiting, nil)
		e.waitStatus(c.ID, store.StatusQueued)
		e.fake.SetModels("qwen2.5:7b")
		e.waitStatus(c.ID, store.StatusProcessed)
	})
	for _, f := range []struct {
		name    string
		reply   fakeollama.Reply
		timeout time.Duration // of one call; 0 for newEnv's
	}{
		{"Slow", fakeollama.Reply{Delay: 2 * time.Second}, 250 * time.Millisecond},
		{"ServerError", fakeollama.Reply{Status: 500, Error: "model runner crashed"}, 0},
		// A connection dropped mid-answer: the client reports no error.
		{"CutShort", fakeollama.Reply{Raw: `{"model":"qwen2.5:7b","created_at":"2026-11-23T08:00:00Z","message":{"role":"assistant","content":"{\"situ"},"done":false}` + "\n"}, 0},
	} {
		t.Run(f.name+"Once", func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			if f.timeout > 0 {
				e.pipe = e.newPipeline(e.timeout(f.timeout))
			}
			var n atomic.Int32
			e.answerWith(func(string, *api.ChatRequest) (fakeollama.Reply, bool) { return f.reply, n.Add(1) == 1 })
			e.start()
			c := e.waitStatus(e.capture(text).ID, store.StatusProcessed)
			if len(c.Segments) != 1 {
				t.Fatalf("segments = %d, want 1", len(c.Segments))
			}
		})
		// The same fault kept up is an outage: see TestOutage.
	}
	for _, f := range []struct {
		name  string
		reply fakeollama.Reply
	}{
		{"Malformed", fakeollama.Reply{Content: `{"situations": [{"first": 1,`}},
		{"SchemaBreaking", fakeollama.Reply{Content: `{"situations":[{"situation":1,"feelings":"anxious","triggers":[],"good_behaviours":[],"bad_behaviours":[],"persons":[],"locations":[],"activities":[]}]}`}},
		{"Truncated", fakeollama.Reply{Content: `{"situations":[]}`, DoneReason: "length"}},
	} {
		t.Run(f.name+"Always", func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			e.answerWith(func(step string, _ *api.ChatRequest) (fakeollama.Reply, bool) { return f.reply, extracting(step) })
			e.start()
			c := e.failsExtracting(text)
			again := e.waitStatus(e.capture(text).ID, store.StatusFailed)
			if again.ID == c.ID {
				t.Fatal("posting the text again did not make a new capture")
			}
		})
		t.Run(f.name+"Once", func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			var n atomic.Int32
			e.answerWith(func(step string, _ *api.ChatRequest) (fakeollama.Reply, bool) {
				return f.reply, extracting(step) && n.Add(1) == 1
			})
			e.start()
			e.waitStatus(e.capture(text).ID, store.StatusProcessed)
		})
	}
}

func TestRestartRecovery(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	c := e.capture("The train was late again on my commute. I was frustrated.")
	// A process claims the capture and dies before finishing it.
	claimed, err := e.store.ClaimCapture(ctx)
	if err != nil || claimed.ID != c.ID {
		t.Fatalf("claim = %v, %v", claimed, err)
	}
	e.start() // the next process
	e.waitStatus(c.ID, store.StatusProcessed)
}

func TestDeleteDuringRun(t *testing.T) {
	t.Parallel()
	logs := &logCounter{}
	e := newEnv(t, func(o *pipeline.Options) { o.Logger = slog.New(logs) })
	ctx := context.Background()
	release := make(chan struct{})
	var inExtract atomic.Bool
	e.answerWith(func(step string, req *api.ChatRequest) (fakeollama.Reply, bool) {
		if extracting(step) {
			inExtract.Store(true)
			<-release
		}
		return fakeollama.Reply{}, false
	})
	e.start()
	c := e.capture("My boss criticised my slides. I felt anxious and skipped lunch.")
	wait.Eventually(t, 5*time.Second, "the run reaches extract", inExtract.Load, nil)
	if err := e.store.DeleteCapture(ctx, e.user.ID, c.ID); err != nil {
		t.Fatal(err)
	}
	close(release)
	// The run finishes and tries to commit.
	const dropped = "capture deleted or changed during its run; result dropped"
	wait.Eventually(t, 5*time.Second, "the run ends, its result dropped", func() bool { return logs.said(dropped) }, logs.String)
	if _, err := e.store.FindCapture(ctx, e.user.ID, c.ID); store.ErrorCode(err) != store.ENOTFOUND {
		t.Fatalf("deleted capture came back: %v", err)
	}
	tags, _ := e.store.Tags(ctx, e.user.ID, store.TagTypes...)
	cats, _ := e.store.Categories(ctx, e.user.ID, store.TagTrigger)
	tot, _ := e.store.ModelCallTotals(ctx, []string{c.ID})
	if len(tags) != 0 || len(cats) != 0 || tot.Calls != 0 {
		t.Fatalf("left behind: %d tags, %d categories, %d call records", len(tags), len(cats), tot.Calls)
	}
}

func discard() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func TestCategoriseShortlist(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	// A long history: 45 trigger categories, one of them about work.
	old := &store.Capture{UserID: e.user.ID, Original: strings.Repeat("x", 100)}
	if err := e.store.CreateCapture(ctx, old); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.ClaimCapture(ctx); err != nil {
		t.Fatal(err)
	}
	var tags []store.NewTag
	for i := range 44 {
		tags = append(tags, store.NewTag{Type: store.TagTrigger, Name: fmt.Sprintf("thing %d", i), NewCategory: fmt.Sprintf("topic number %d", i)})
	}
	tags = append(tags, store.NewTag{Type: store.TagTrigger, Name: "harsh review", NewCategory: "criticism at work"})
	if err := e.store.CommitAnalysis(ctx, &store.Analysis{CaptureID: old.ID, UserID: e.user.ID, Translated: old.Original,
		Segments: []store.AnalysedSegment{{Start: 0, End: 100, Tags: tags}}}); err != nil {
		t.Fatal(err)
	}
	e.start()
	c := e.waitStatus(e.capture("My boss criticised my report. I felt anxious.").ID, store.StatusProcessed)
	if st := e.fake.Stats(); st.EmbedCalls == 0 {
		t.Fatal("no embedding call shortlisted the 45 categories")
	}
	for _, call := range e.fake.Calls() {
		if call.Request != nil && scripted.Step(call.Request) == "categorise" {
			offered := strings.Count(call.Request.Messages[1].Content, "[ct")
			if offered == 0 || offered > 8 {
				t.Fatalf("categorise was offered %d categories, want the 8 nearest at most", offered)
			}
			if !strings.Contains(call.Request.Messages[1].Content, "criticism at work") {
				t.Fatalf("the nearest category is not on the shortlist:\n%s", call.Request.Messages[1].Content)
			}
		}
	}
	for _, sg := range c.Segments {
		for _, tg := range sg.Tags {
			if tg.Type == store.TagTrigger && tg.Category.Name != "criticism at work" {
				t.Fatalf("trigger joined %q, want the existing criticism at work", tg.Category.Name)
			}
		}
	}
	cats, _ := e.store.Categories(ctx, e.user.ID, store.TagTrigger)
	embedded := 0
	for _, c := range cats {
		if len(c.Embedding) > 0 {
			embedded++
		}
	}
	if embedded != len(cats) {
		t.Fatalf("%d of %d categories kept their embedding", embedded, len(cats))
	}
}
