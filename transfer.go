package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/recur-journal/recur/importer"
	"github.com/recur-journal/recur/journal"
	"github.com/recur-journal/recur/pipeline"
	"github.com/recur-journal/recur/pipeline/detect"
	"github.com/recur-journal/recur/store"
)

const importAbout = `Import a journal into the user's account, then analyse it, showing progress.

PATH is a Day One export (its .zip, or the Journal.json in it, or the unzipped
folder), a jrnl JSON export (jrnl --export json), a Markdown file, a zip or
folder of Markdown files with dates in their names or front matter, or a
Recur export (recur export). Entries the account already has are left out,
so importing the same file again adds nothing. A file that cannot be read
imports nothing and says which entry is at fault.

Analysis takes about thirty seconds to two minutes an entry with a local
model. Stop it with Ctrl-C at any time: the entries left wait in the queue
and recur serve analyses them.`

const exportAbout = `Write everything stored for the user's journal as one JSON document: settings,
categories, tags, captures, segments, patterns, correlations and flows.
Passwords, tokens and apps are not part of it. recur import brings it back.
With --format markdown: a zip with one Markdown file per entry instead, its
text with front matter (date, language, tags, patterns); recur import reads
it back, the texts at their moments.`

// userByEmail finds the user a command acts for.
func (m *Main) userByEmail(ctx context.Context, email string) (*store.User, error) {
	if email == "" {
		return nil, errors.New("say whose journal it is with --user EMAIL")
	}
	u, err := m.store.FindUserByEmail(ctx, email)
	if store.ErrorCode(err) == store.ENOTFOUND {
		return nil, fmt.Errorf("no user has the address %s; create one with: recur user add %s", email, email)
	}
	return u, err
}

func (m *Main) parseImport(args []string) error {
	var email string
	var noWait bool
	return m.parse("import PATH --user EMAIL", importAbout, args, 1, 1,
		func(fs *flag.FlagSet) {
			fs.StringVar(&email, "user", "", "the `EMAIL` of the account to import into")
			fs.BoolVar(&noWait, "no-wait", false, "only queue the entries; a running recur serve analyses them")
		},
		func(pos []string) {
			m.command = func(ctx context.Context) error { return m.importJournal(ctx, pos[0], email, !noWait) }
		})
}

func (m *Main) parseExport(args []string) error {
	var email, output, format string
	return m.parse("export --user EMAIL [--output FILE] [--format json|markdown]", exportAbout, args, 0, 0,
		func(fs *flag.FlagSet) {
			fs.StringVar(&email, "user", "", "the `EMAIL` of the account to export")
			fs.StringVar(&output, "output", "", "write to `FILE` (made readable by you alone) instead of standard output")
			fs.StringVar(&format, "format", "json", "json (everything, restorable) or markdown (a zip with one file per entry)")
		},
		func([]string) {
			m.command = func(ctx context.Context) error { return m.exportJournal(ctx, email, output, format) }
		})
}

func (m *Main) importJournal(ctx context.Context, path, email string, wait bool) error {
	if email == "" {
		return errors.New("say whose journal it is with --user EMAIL")
	}
	if err := m.openStore(ctx, true); err != nil {
		return err
	}
	u, err := m.userByEmail(ctx, email)
	if err != nil {
		return err
	}
	opts, err := journal.ImportOptions(ctx, m.store, u.ID)
	if err != nil {
		return err
	}
	res, release, err := journal.ReadPath(path, opts)
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path == path {
		return fmt.Errorf("cannot read %s: %w", path, pe.Err)
	} else if err != nil {
		return fmt.Errorf("nothing was imported: %w", err)
	}
	// A Recur export is read from the file while it is restored, so the
	// file stays open until then. An *importer.Error met on the way passes
	// cliError unchanged and reads as one met above.
	r, err := journal.Import(ctx, m.store, u.ID, filepath.Base(path), res)
	release()
	if err != nil {
		return fmt.Errorf("nothing was imported: %w", cliError(err))
	}
	m.reportImport(res, r)
	if !wait || r.Batch.Pending == 0 {
		return nil
	}
	return m.watchBatch(ctx, u.ID, r.Batch)
}

// reportImport says what an import brought in.
func (m *Main) reportImport(res *importer.Result, r *store.ImportResult) {
	what := fmt.Sprintf("%d %s", r.Imported, plural(r.Imported, "entry", "entries"))
	if res.Format == importer.Recur && r.Duplicates == 0 {
		what += " with everything found in them"
	}
	fmt.Fprintf(m.Stdout, "Imported %s (%s)", what, res.Format.Title())
	if r.Duplicates > 0 {
		fmt.Fprintf(m.Stdout, "; %d %s already here", r.Duplicates, plural(r.Duplicates, "was", "were"))
	}
	if res.Skipped > 0 {
		fmt.Fprintf(m.Stdout, "; left out %d without text or not a journal file", res.Skipped)
	}
	fmt.Fprintf(m.Stdout, ".\nJob batch %s: %d to analyse.\n", r.Batch.ID, r.Batch.Pending)
}

// watchBatch analyses queued captures in this process until the batch is
// done, drawing its progress. A running server may share the work: each
// capture is claimed by one of them.
func (m *Main) watchBatch(ctx context.Context, userID string, b *store.JobBatch) error {
	// The bar says when Ollama cannot be reached; the log keeps to errors,
	// such as a capture that failed.
	quiet := slog.New(slog.NewTextHandler(m.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	p, _, err := m.newPipeline(quiet)
	if err != nil {
		return err
	}
	bar := newProgress(m.Stderr, b.Total)
	start := time.Now()
	for {
		if b, err = m.store.FindJobBatch(context.WithoutCancel(ctx), userID, b.ID); err != nil {
			return err
		}
		bar.draw(b, time.Since(start), p.Waiting(), m.Config.Model.URL)
		if b.Pending == 0 || ctx.Err() != nil {
			break
		}
		ran, err := p.ProcessNext(ctx)
		if err != nil && ctx.Err() == nil {
			return err
		}
		if !ran {
			// Nothing ready: a run waits out a backoff, or runs elsewhere.
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
		}
	}
	bar.done()
	if b.Pending > 0 {
		fmt.Fprintf(m.Stdout, "Stopped. %d %s wait in the queue; recur serve analyses them. Follow the batch at GET /api/job-batches/%s.\n",
			b.Pending, plural(b.Pending, "entry", "entries"), b.ID)
		return nil
	}
	fmt.Fprintf(m.Stdout, "Analysed %d %s", b.Processed, plural(b.Processed, "entry", "entries"))
	if b.Failed > 0 {
		fmt.Fprintf(m.Stdout, "; %d failed and keep only their text (GET /api/captures lists them)", b.Failed)
	}
	fmt.Fprintln(m.Stdout, ".")
	return nil
}

// newPipeline makes the analysis pipeline, and its model server's client,
// from the configuration.
func (m *Main) newPipeline(log *slog.Logger) (*pipeline.Pipeline, pipeline.Provider, error) {
	model, err := m.newProvider(m.Config.Model.Timeout.Duration)
	if err != nil {
		return nil, nil, err
	}
	var watcher pipeline.Watcher
	var detector pipeline.Detector = detect.NewDetector(m.store, nil)
	if m.events != nil { // serving: open pages follow the changes
		watcher = m.events
	}
	if m.hooks.notifier != nil { // serving: webhooks hear of them too
		watcher, detector = m.hooks.notifier.Watch(watcher), m.hooks.notifier.Detect(detector)
	}
	return pipeline.New(pipeline.Options{
		Watcher:   watcher,
		Store:     m.store,
		Model:     m.countModel(model),
		ModelName: m.Config.Model.Name,
		Logger:    log.With("part", "pipeline"),
		Workers:   m.Config.Model.Workers * len(m.Config.Model.URLs()),
		Detector:  m.countDetection(detector),
	}), model, nil
}

// newProvider is the client of the configured model server, its calls
// bounded by timeout.
func (m *Main) newProvider(timeout time.Duration) (pipeline.Provider, error) {
	providers, err := m.endpoints(timeout)
	if err != nil || len(providers) == 1 {
		return providers[0], err
	}
	urls := m.Config.Model.URLs()
	return pipeline.NewPool(urls, providers, m.Config.Model.Workers, time.Second, time.Minute, m.Logger.With("part", "pipeline")), nil
}

// endpoints are the clients of each configured model server.
func (m *Main) endpoints(timeout time.Duration) ([]pipeline.Provider, error) {
	c := m.Config.Model
	var out []pipeline.Provider
	for _, u := range c.URLs() {
		p, err := pipeline.NewProvider(pipeline.ModelOptions{Provider: c.Provider, URL: u, Model: c.Name, EmbedModel: c.EmbedName,
			APIKey: c.APIKey, Timeout: timeout})
		if err != nil {
			return []pipeline.Provider{nil}, err
		}
		out = append(out, p)
	}
	return out, nil
}

func (m *Main) exportJournal(ctx context.Context, email, output, format string) error {
	if format != "json" && format != "markdown" {
		return fmt.Errorf("unknown format %q: say json or markdown", format)
	}
	if err := m.openStore(ctx, true); err != nil {
		return err
	}
	export := m.store.Export
	if format == "markdown" {
		export = func(ctx context.Context, userID string, w io.Writer) error {
			return journal.ExportMarkdown(ctx, m.store, userID, w)
		}
	}
	u, err := m.userByEmail(ctx, email)
	if err != nil {
		return err
	}
	if output == "" {
		return export(ctx, u.ID, m.Stdout)
	}
	// Written beside the target and renamed, so a failed export never
	// leaves half a file under the name asked for. CreateTemp makes the file
	// 0600, and the rename keeps that: the journal is readable by its owner alone.
	f, err := os.CreateTemp(filepath.Dir(output), ".recur-export-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	n := &countingWriter{w: f}
	if err := export(ctx, u.ID, n); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(f.Name(), output); err != nil {
		return err
	}
	fmt.Fprintf(m.Stderr, "Wrote %s (%s). Bring it back with: recur import %s --user EMAIL\n", output, byteSize(n.n), output)
	return nil
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

func byteSize(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// progress draws a batch's progress: a bar redrawn in place on a terminal,
// a line at every tenth otherwise (a log, a pipe).
type progress struct {
	w         io.Writer
	tty       bool
	total     int
	lastTenth int
	waiting   bool
	drawn     bool
}

func newProgress(w io.Writer, total int) *progress {
	tty := false
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			tty = true
		}
	}
	return &progress{w: w, tty: tty, total: total, lastTenth: -1}
}

func (p *progress) draw(b *store.JobBatch, elapsed time.Duration, waiting bool, ollamaURL string) {
	ended := b.Processed + b.Failed
	line := fmt.Sprintf("%s %3d%% %d/%d analysed", bar(b.Progress(), 30), b.Progress(), ended, b.Total)
	if b.Failed > 0 {
		line += fmt.Sprintf(", %d failed", b.Failed)
	}
	switch {
	case waiting:
		line += " · waiting for Ollama at " + ollamaURL + " (is it running? recur doctor checks)"
	case ended > 0 && b.Pending > 0:
		if left := time.Duration(float64(elapsed) / float64(ended) * float64(b.Pending)).Round(time.Second); left > 0 {
			line += " · about " + left.String() + " left"
		}
	}
	if p.tty {
		fmt.Fprintf(p.w, "\r\033[K%s", line)
		p.drawn = true
		return
	}
	if tenth := b.Progress() / 10; tenth != p.lastTenth || waiting != p.waiting {
		p.lastTenth, p.waiting = tenth, waiting
		fmt.Fprintln(p.w, line)
	}
}

func (p *progress) done() {
	if p.tty && p.drawn {
		fmt.Fprintln(p.w)
	}
}

// bar renders percent as a bar of width cells.
func bar(percent, width int) string {
	full := percent * width / 100
	return "[" + strings.Repeat("#", full) + strings.Repeat(".", width-full) + "]"
}
