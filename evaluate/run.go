package evaluate

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/recur-journal/recur/migrations"
	"github.com/recur-journal/recur/pipeline"
	"github.com/recur-journal/recur/pipeline/detect"
	"github.com/recur-journal/recur/store"
)

// Options configures Run.
type Options struct {
	// Provider ("ollama", the default, or "openai"), OllamaURL (the
	// server's URL, whichever the provider), Model, EmbedModel and APIKey
	// name the model server and models to measure, as [model] in the
	// configuration does.
	Provider, OllamaURL, Model, EmbedModel, APIKey string
	// Timeout bounds one model call; 0 means the client's default.
	Timeout time.Duration
	// Logger gets the pipeline's messages; nil discards them.
	Logger *slog.Logger
	// Progress, when set, is told after every entry analysed.
	Progress func(Progress)
	// TempDir is where the throwaway data folders are made; "" means the
	// system's temporary folder.
	TempDir string
}

// Progress is how far the analysis of one journal has come.
type Progress struct {
	Journal                  string
	Total, Processed, Failed int
	Waiting                  bool // calls to Ollama fail: analysis waits
	Elapsed                  time.Duration
}

// Run analyses each journal in a data folder of its own, removed at the end,
// and scores what the pipeline and detection found. It returns an error at
// once when Ollama does not answer or lacks a model; while calls fail later
// on, it waits for Ollama (until ctx ends).
func Run(ctx context.Context, opts Options, journals []*Journal) (*Report, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	ollama, err := pipeline.NewProvider(pipeline.ModelOptions{Provider: opts.Provider, URL: opts.OllamaURL, Model: opts.Model,
		EmbedModel: opts.EmbedModel, APIKey: opts.APIKey, Timeout: opts.Timeout})
	if err != nil {
		return nil, err
	}
	if st := ollama.Check(ctx); st.Problem != "" {
		return nil, fmt.Errorf("%s", st.Problem)
	}
	r := &Report{Model: opts.Model, OllamaURL: opts.OllamaURL, StartedAt: time.Now().UTC(), Journals: []JournalReport{}}
	for _, j := range journals {
		jr, err := runJournal(ctx, opts, ollama, j)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", j.Name, err)
		}
		r.Journals = append(r.Journals, *jr)
	}
	return r, nil
}

func runJournal(ctx context.Context, opts Options, model pipeline.Model, j *Journal) (*JournalReport, error) {
	dir, err := os.MkdirTemp(opts.TempDir, "recur-eval-*") // 0700: the folder is its maker's alone
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	// The clock is the moment each entry is written while it is analysed,
	// as the writer met it (so descriptions are written and kept up as
	// they would have been), and the journal's end for the last reading.
	end := j.End()
	var at atomic.Int64
	clock := func() time.Time { return time.Unix(0, at.Load()).UTC() }
	setClock := func(t time.Time) { at.Store(t.UnixNano()) }
	setClock(end)
	s, err := store.Open(store.Options{Path: filepath.Join(dir, "recur.db"), Migrations: migrations.FS, Now: clock})
	if err != nil {
		return nil, err
	}
	defer s.Close()
	if _, err := s.Migrate(ctx); err != nil {
		return nil, err
	}
	u := &store.User{Email: "eval@example.com", Name: j.Name}
	if err := s.CreateUser(ctx, u); err != nil {
		return nil, err
	}
	if err := s.PutSetting(ctx, u.ID, &store.Setting{Key: store.SettingTimezone, Value: j.Timezone}); err != nil {
		return nil, err
	}
	if err := s.PutSetting(ctx, u.ID, &store.Setting{Key: store.SettingAppLocale, Value: j.locale()}); err != nil {
		return nil, err
	}
	// In the order written, as a user would have: the queue takes them so.
	order := make([]int, len(j.Entries))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return j.Entries[a].OccurredAt.Compare(j.Entries[b].OccurredAt) })
	ids := make([]string, len(j.Entries))
	written := make([]time.Time, len(order)) // in the order the queue takes them
	for k, i := range order {
		written[k] = j.Entries[i].OccurredAt
	}
	for _, i := range order {
		setClock(j.Entries[i].OccurredAt) // queued then, ready from then
		c := &store.Capture{UserID: u.ID, Original: j.Entries[i].Text, OccurredAt: j.Entries[i].OccurredAt}
		if err := s.CreateCapture(ctx, c); err != nil {
			return nil, fmt.Errorf("entry of %s: %w", j.Entries[i].OccurredAt.Format(time.RFC3339), err)
		}
		ids[i] = c.ID
	}

	m := &meter{Model: model}
	// Detection after every entry, as the writer met it, one entry at a time.
	p := pipeline.New(pipeline.Options{Store: s, Model: m, ModelName: opts.Model, Logger: opts.Logger.With("journal", j.Name),
		Workers: 1, Detector: detect.NewDetector(s, clock), DetectEvery: 1})
	start := time.Now()
	if err := analyse(ctx, opts, s, p, j.Name, written, setClock, start); err != nil {
		return nil, err
	}
	setClock(end)
	if err := p.Refresh(ctx, u.ID); err != nil {
		return nil, err
	}
	seconds := time.Since(start).Seconds()

	found, err := collect(ctx, s, u.ID, j, ids)
	if err != nil {
		return nil, err
	}
	jr := Score(j, *found)
	totals, err := s.ModelCallTotals(ctx, ids)
	if err != nil {
		return nil, err
	}
	describe := m.step(pipeline.StepDescribe)
	jr.Cost = Cost{Calls: totals.Calls, PromptTokens: totals.PromptTokens, OutputTokens: totals.OutputTokens,
		Seconds: seconds, DescribeCalls: describe.calls, DescribePromptTokens: describe.prompt, DescribeOutputTokens: describe.output}
	jr.Cost.perEntry(len(ids))
	jr.Cost.Steps = m.prompts.report()
	jr.Cost.FixedPromptTokensPerEntry, jr.Cost.VaryingPromptTokensPerEntry = splitPerEntry(jr.Cost.Steps, len(ids))
	return &jr, nil
}

// analyse runs the queue dry in this goroutine, telling opts.Progress, with
// the clock set to the moment the entry next in the queue was written.
func analyse(ctx context.Context, opts Options, s *store.Store, p *pipeline.Pipeline, name string, written []time.Time,
	setClock func(time.Time), start time.Time) error {
	total := len(written)
	for {
		q, err := s.QueueCounts(ctx)
		if err != nil {
			return err
		}
		if opts.Progress != nil {
			opts.Progress(Progress{Journal: name, Total: total, Processed: total - q.Queued - q.Processing - q.Failed,
				Failed: q.Failed, Waiting: p.Waiting(), Elapsed: time.Since(start)})
		}
		if q.Queued+q.Processing == 0 {
			return nil
		}
		setClock(written[min(total-q.Queued-q.Processing, total-1)])
		ran, err := p.ProcessNext(ctx)
		if err != nil {
			return err
		}
		if !ran {
			// Calls to Ollama fail: wait for the gate's next probe.
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(time.Second):
			}
		}
	}
}

// collect reads back what the analysis stored, in plain values.
func collect(ctx context.Context, s *store.Store, userID string, j *Journal, ids []string) (*Found, error) {
	f := &Found{}
	for _, id := range ids {
		c, err := s.FindCapture(ctx, userID, id)
		if err != nil {
			return nil, err
		}
		e := FoundEntry{Failed: c.Status == store.StatusFailed, Text: c.Translated}
		if e.Text == "" {
			e.Text = c.Original
		}
		for _, sg := range c.Segments {
			fs := FoundSituation{Start: sg.Start, End: sg.End}
			pleasant, unpleasant := false, false
			for _, t := range sg.Tags {
				if slices.Contains(feelingTypes, t.Type) {
					fs.Feelings = append(fs.Feelings, t.Name)
				}
				pleasant = pleasant || t.Type == store.TagPositiveFeeling
				unpleasant = unpleasant || t.Type == store.TagNegativeFeeling
				if store.Categorised(t.Type) && t.Category != nil && !slices.Contains(fs.Categories, t.Category.Name) {
					fs.Categories = append(fs.Categories, t.Category.Name)
				}
			}
			if pleasant != unpleasant {
				fs.Valence = map[bool]int{true: 1, false: -1}[pleasant]
			}
			e.Situations = append(e.Situations, fs)
		}
		f.Entries = append(f.Entries, e)
	}
	list, _, err := s.ListPatterns(ctx, userID, store.Page{Page: 1, Limit: 1000})
	if err != nil {
		return nil, err
	}
	patternIDs := make([]string, len(list))
	for i, pat := range list {
		patternIDs[i] = pat.ID
	}
	loops, err := s.PatternLoops(ctx, userID, patternIDs...)
	if err != nil {
		return nil, err
	}
	for i := range list {
		pat := &list[i]
		d, err := s.PatternDetail(ctx, pat)
		if err != nil {
			return nil, err
		}
		fp := FoundPattern{ID: pat.ID, Loop: loops[pat.ID].LeadID, Name: pat.Name, Kind: pat.Kind, Urgent: pat.Urgent,
			Description: pat.Description}
		for _, c := range d.Captures {
			if day := j.Day(c.OccurredAt); !slices.Contains(fp.Days, day) {
				fp.Days = append(fp.Days, day)
			}
		}
		for _, c := range d.Correlations {
			fp.Correlations = append(fp.Correlations, Tag{Type: c.Tag.Type, Name: c.Tag.Name})
		}
		f.Patterns = append(f.Patterns, fp)
	}
	return f, nil
}

// meter counts the model calls of each step and their tokens,
// descriptions included, which the model_calls table does not hold (they
// belong to no one capture), and measures their prompts.
type meter struct {
	pipeline.Model
	mu      sync.Mutex
	steps   map[string]stepTotals
	prompts promptMeter
}

// stepTotals are one step's calls and the tokens they took.
type stepTotals struct{ calls, prompt, output int }

func (m *meter) Chat(ctx context.Context, req pipeline.ChatRequest) (pipeline.ChatResult, error) {
	res, err := m.Model.Chat(ctx, req)
	m.mu.Lock()
	if m.steps == nil {
		m.steps = map[string]stepTotals{}
	}
	st := m.steps[req.Step]
	st.calls++
	st.prompt += res.PromptTokens
	st.output += res.OutputTokens
	m.steps[req.Step] = st
	m.mu.Unlock()
	if err == nil {
		m.prompts.record(req, res.PromptTokens)
	}
	return res, err
}

func (m *meter) step(name string) stepTotals {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.steps[name]
}
