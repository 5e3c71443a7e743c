package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/recur-journal/recur/evaluate"
	"github.com/recur-journal/recur/store"
)

const evalAbout = `Measure how well a model reads journals: run labelled journals through the
real analysis and detection, in a throwaway data folder removed at the end,
and compare what was found with the labels.

JOURNAL is a labelled journal file (the format is in evaluate/journals/README.md) or the
name of a shipped one (SHIPPED). With none, every shipped journal runs.
The model is the configured one ([model] provider, url, name and api_key)
unless --ollama (the server's URL, whichever the provider) and --model say
otherwise; your own journal and data are never touched.

The report, per journal: planted threads found (recall) and missed; patterns
that stand for no thread (precision); threads shown on several cards;
urgent right or wrong; correlations right; situation boundaries and
feelings against the labelled ones; model calls, tokens and seconds per
entry, and how many of the prompt tokens are each step's fixed start (the
part a model server's prompt cache keeps) and how many change per call. A pattern stands for a thread when its kind is one the thread lists
and at least 60% of its days are the thread's days (the writer's local days).

With a local model, expect thirty seconds to two minutes an entry.`

func (m *Main) parseEval(args []string) error {
	var ollamaURL, model, jsonPath string
	about := strings.Replace(evalAbout, "SHIPPED", strings.Join(shippedNames(), ", "), 1)
	return m.parse("eval [JOURNAL...] [--ollama URL] [--model NAME] [--json FILE]", about, args, 0, 100,
		func(fs *flag.FlagSet) {
			fs.StringVar(&ollamaURL, "ollama", "", "the model server's `URL` to measure (default [model] url)")
			fs.StringVar(&model, "model", "", "the model `NAME` to measure (default [model] name)")
			fs.StringVar(&jsonPath, "json", "", "also write the report as JSON to `FILE`, to compare models")
		},
		func(pos []string) {
			m.command = func(ctx context.Context) error { return m.eval(ctx, pos, ollamaURL, model, jsonPath) }
		})
}

func (m *Main) eval(ctx context.Context, args []string, ollamaURL, model, jsonPath string) error {
	if err := m.loadConfig(); err != nil {
		return err
	}
	journals, err := evalJournals(args)
	if err != nil {
		return err
	}
	c := m.Config.Model
	opts := evaluate.Options{Provider: c.Provider, OllamaURL: c.URL, Model: c.Name, EmbedModel: c.EmbedName, APIKey: c.APIKey,
		Timeout: c.Timeout.Duration,
		Logger:  slog.New(slog.NewTextHandler(m.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))}
	if ollamaURL != "" {
		opts.OllamaURL = ollamaURL
	}
	if model != "" {
		opts.Model = model
	}
	// One bar per journal, drawn by the code that draws an import's.
	var bar *progress
	var current string
	opts.Progress = func(p evaluate.Progress) {
		if p.Journal != current {
			if bar != nil {
				bar.done()
			}
			fmt.Fprintf(m.Stderr, "Analysing %s (%d entries) with %s\n", p.Journal, p.Total, opts.Model)
			bar, current = newProgress(m.Stderr, p.Total), p.Journal
		}
		b := &store.JobBatch{Total: p.Total, Processed: p.Processed, Failed: p.Failed, Pending: p.Total - p.Processed - p.Failed}
		bar.draw(b, p.Elapsed, p.Waiting, opts.OllamaURL)
	}
	report, err := evaluate.Run(ctx, opts, journals)
	if bar != nil {
		bar.done()
	}
	if err != nil {
		return err
	}
	if err := report.Print(m.Stdout); err != nil {
		return err
	}
	if jsonPath == "" {
		return nil
	}
	b, err := json.MarshalIndent(report, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(jsonPath, append(b, '\n'), 0o600)
}

// evalJournals reads the journals named on the command line: files, or
// names of shipped journals; none means every shipped one.
func evalJournals(args []string) ([]*evaluate.Journal, error) {
	if len(args) == 0 {
		return evaluate.Shipped()
	}
	var out []*evaluate.Journal
	for _, a := range args {
		b, err := os.ReadFile(a)
		if errors.Is(err, os.ErrNotExist) && filepath.Base(a) == a {
			if j, ok := evaluate.ShippedNamed(a); ok {
				out = append(out, j)
				continue
			}
			return nil, fmt.Errorf("%s is neither a file nor a shipped journal (%s)", a, strings.Join(shippedNames(), ", "))
		}
		if err != nil {
			return nil, err
		}
		j, err := evaluate.Parse(b)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", a, err)
		}
		out = append(out, j)
	}
	return out, nil
}

func shippedNames() []string {
	list, _ := evaluate.Shipped()
	names := make([]string, len(list))
	for i, j := range list {
		names[i] = j.Name
	}
	return names
}
