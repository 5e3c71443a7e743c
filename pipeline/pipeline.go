package pipeline

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/recur-journal/recur/store"
)

// Detector re-counts a user's patterns after their captures change.
type Detector interface {
	Detect(ctx context.Context, userID string) error
}

// DayCounter is a Detector that tells, from its last run for a user, the
// local dates on which any of the patterns with the given ids showed up, as
// store.LoopDays reads them; false when it cannot tell. Deciding whether a
// description is out of date then costs no reading of the journal.
type DayCounter interface {
	LoopDays(userID string, loc *time.Location, ids ...string) (map[string]bool, bool)
}

// NoDetection is the Detector used until detection exists: it does nothing.
type NoDetection struct{}

// Detect implements Detector.
func (NoDetection) Detect(context.Context, string) error { return nil }

// Options configures a Pipeline.
type Options struct {
	Store  *store.Store
	Model  Model
	Logger *slog.Logger
	// ModelName is recorded against each call.
	ModelName string
	// Workers is how many captures are analysed at once, each of a different user.
	Workers int
	// Detector runs once a user's ready captures are analysed, and within
	// the bounds of DetectEvery and DetectAfter while more wait; nil means
	// NoDetection.
	Detector Detector
	// DetectEvery is how many captures of a user are analysed at most
	// between two detections while more wait; 0 means DefaultDetectEvery.
	// 1 detects after every capture, as if each had been written alone.
	DetectEvery int
	// Poll is how often idle workers look for work they were not told of;
	// 0 means one second.
	Poll time.Duration
	// Backoff is the wait before the first probe once calls to Ollama
	// fail; each failed probe doubles it, up to MaxBackoff, less up to a
	// quarter at random. 0 means 1s and 1m: a recovered Ollama is noticed
	// within a minute, and a probe a minute costs next to nothing. Captures
	// wait in the queue meanwhile, however long it takes: a fault of Ollama
	// never fails one.
	Backoff, MaxBackoff time.Duration
	// Days tells the days of a user's patterns from the last detection
	// run; nil means the Detector itself when it is a DayCounter, else
	// the store is asked. Set it when the Detector is wrapped.
	Days DayCounter
	// Watcher is told of every status change of a capture and of patterns
	// detection opens; nil tells no one.
	Watcher Watcher
	// Clock keeps the backoff of the waits while calls to Ollama fail;
	// nil means the real clock.
	Clock Clock
}

// Pipeline is the analysis queue and its workers. The queue is the captures
// table itself, so nothing is lost when the process stops.
type Pipeline struct {
	opts     Options
	wake     chan struct{}
	describe chan string // users whose pattern descriptions need writing
	cancel   context.CancelFunc
	wg       sync.WaitGroup
	gate     *gate
	model    Model // opts.Model, reporting to the gate
	det      detections
	names    nameVectors
	tags     store.NamesCache // the users' names kept between runs
	forms    nameForms        // the forms names are found in entries by
	days     DayCounter       // opts.Detector's, or nil
}

// New returns a pipeline; Start starts its workers.
func New(opts Options) *Pipeline {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Workers <= 0 {
		opts.Workers = 1
	}
	if opts.Detector == nil {
		opts.Detector = NoDetection{}
	}
	if opts.DetectEvery <= 0 {
		opts.DetectEvery = DefaultDetectEvery
	}
	days := opts.Days
	if days == nil {
		days, _ = opts.Detector.(DayCounter)
	}
	if opts.Watcher != nil {
		opts.Detector = watchedDetector{Detector: opts.Detector, store: opts.Store, watcher: opts.Watcher}
	}
	if opts.Poll <= 0 {
		opts.Poll = time.Second
	}
	if opts.Backoff <= 0 {
		opts.Backoff = time.Second
	}
	if opts.MaxBackoff <= 0 {
		opts.MaxBackoff = time.Minute
	}
	opts.MaxBackoff = max(opts.MaxBackoff, opts.Backoff)
	if opts.Clock == nil {
		opts.Clock = wallClock{}
	}
	g := newGate(opts.Backoff, opts.MaxBackoff, opts.Clock, opts.Logger)
	return &Pipeline{opts: opts, wake: make(chan struct{}, opts.Workers), describe: make(chan string, 256),
		gate: g, model: gatedModel{Model: opts.Model, gate: g}, days: days}
}

// loopDays returns the local dates on which any of the user's patterns with
// the given ids showed up: from the Detector's last run when it can tell,
// else from the store.
func (p *Pipeline) loopDays(ctx context.Context, userID string, loc *time.Location, ids ...string) (map[string]bool, error) {
	if p.days != nil {
		if days, ok := p.days.LoopDays(userID, loc, ids...); ok {
			return days, nil
		}
	}
	return p.opts.Store.LoopDays(ctx, userID, loc, ids...)
}

// Start puts back in the queue any capture a previous process left in
// processing, then starts the workers.
func (p *Pipeline) Start(ctx context.Context) error {
	n, err := p.opts.Store.RequeueProcessing(ctx)
	if err != nil {
		return err
	}
	if n > 0 {
		p.opts.Logger.Info("requeued captures left processing by the last run", "count", n)
	}
	ctx, p.cancel = context.WithCancel(context.WithoutCancel(ctx))
	for i := range p.opts.Workers {
		p.wg.Add(1)
		go p.work(ctx, i)
	}
	return nil
}

// Stop stops the workers and waits for them. A run cut short goes back to
// the queue with nothing of it written.
func (p *Pipeline) Stop() {
	if p.cancel != nil {
		p.cancel()
	}
	p.wg.Wait()
}

// Notify tells an idle worker that a capture was queued.
func (p *Pipeline) Notify() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// Redetect re-counts the user's patterns, as after a capture was deleted.
func (p *Pipeline) Redetect(ctx context.Context, userID string) error {
	return p.opts.Detector.Detect(ctx, userID)
}

// Redescribe asks for the user's pattern descriptions to be written again
// where they are missing or in another language than app_locale; an idle
// worker does it.
func (p *Pipeline) Redescribe(userID string) {
	select {
	case p.describe <- userID:
	default: // full: the next run for this user describes anyway
	}
}

// Refresh re-counts the user's patterns and then writes the descriptions
// they need. A description that cannot be written now is logged and tried
// again on the next refresh.
func (p *Pipeline) Refresh(ctx context.Context, userID string) error {
	if err := p.opts.Detector.Detect(ctx, userID); err != nil {
		return err
	}
	p.describeFor(ctx, p.opts.Logger.With("user_id", userID), userID)
	return nil
}

// describeFor writes the user's missing descriptions unless calls to the
// model fail now; a description not written now is tried again later.
func (p *Pipeline) describeFor(ctx context.Context, log *slog.Logger, userID string) {
	if p.gate.state().Failing {
		return
	}
	// A fault of Ollama is logged once, by the gate.
	if err := p.writeDescriptions(ctx, log, userID); err != nil && !fault(err) {
		log.Warn("pattern descriptions not written", "error", err)
	}
	// Names in the reader's language are for show: one not written now
	// leaves the English name on the pages until the next run.
	if err := p.writeCategoryNames(ctx, log, userID); err != nil && !fault(err) {
		log.Warn("pattern names not written in the reader's language", "error", err)
	}
}

// Workers is the number of workers.
func (p *Pipeline) Workers() int { return p.opts.Workers }

// Waiting reports whether analysis is paused because calls to Ollama fail.
func (p *Pipeline) Waiting() bool { return p.gate.state().Failing }

// Outage reports whether calls to Ollama fail now, since when and why.
func (p *Pipeline) Outage() Outage { return p.gate.state() }

// ProcessNext claims one ready capture and analyses it, in the caller's
// goroutine. It reports false when no capture was ready, or when calls to
// Ollama fail and the next probe is not due yet; detections put off (see
// Options.DetectEvery) run then, before it returns.
func (p *Pipeline) ProcessNext(ctx context.Context) (bool, error) {
	ok, probe, _, _ := p.gate.admit()
	if !ok {
		p.detectPending(ctx, p.opts.Logger)
		return false, nil
	}
	c, err := p.opts.Store.ClaimCapture(ctx)
	if err != nil {
		p.gate.done(probe, false)
		if store.ErrorCode(err) == store.ENOTFOUND {
			p.detectPending(ctx, p.opts.Logger)
			return false, nil
		}
		return false, err
	}
	p.gate.done(probe, p.process(ctx, p.opts.Logger.With("capture_id", c.ID, "user_id", c.UserID), c))
	return true, nil
}

func (p *Pipeline) work(ctx context.Context, n int) {
	defer p.wg.Done()
	log := p.opts.Logger.With("worker", n)
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		// While calls fail, workers wait here without touching the
		// database; one at a time is let through as the probe.
		probe, err := p.gate.pass(ctx)
		if err != nil {
			return
		}
		c, err := p.opts.Store.ClaimCapture(ctx)
		if err == nil {
			p.gate.done(probe, p.process(ctx, log.With("capture_id", c.ID, "user_id", c.UserID), c))
			continue
		}
		p.gate.done(probe, false)
		switch {
		case ctx.Err() != nil:
			return
		case store.ErrorCode(err) != store.ENOTFOUND:
			log.Error("claim capture", "error", err)
		default:
			p.detectPending(ctx, log)
		}
		timer.Reset(p.opts.Poll)
		select {
		case <-ctx.Done():
			return
		case <-p.wake:
		case <-timer.C:
		case userID := <-p.describe:
			p.describeFor(ctx, log.With("user_id", userID), userID)
		}
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
	}
}

// process analyses one claimed capture and settles its status. It reports
// whether the run ended because a call to the model failed (the capture
// went back to the queue).
func (p *Pipeline) process(ctx context.Context, log *slog.Logger, c *store.Capture) (faulted bool) {
	if p.opts.Watcher != nil {
		p.opts.Watcher.CaptureChanged(c) // claimed: processing
	}
	start := time.Now()
	mark := p.gate.unusableMark()
	r := &runner{store: p.opts.Store, model: p.model, modelName: p.opts.ModelName, log: log, capture: c, names: &p.names, tags: &p.tags, forms: &p.forms}
	a, err := r.analyse(ctx)
	// Settling must happen even when shutdown cancelled the run.
	settle := context.WithoutCancel(ctx)
	if err == nil {
		err = p.opts.Store.CommitAnalysis(settle, a)
		if store.ErrorCode(err) == store.ENOTFOUND {
			// Deleted while it was analysed: nothing of it may be left.
			// Or a category it joined was pruned by a delete meanwhile: run it again.
			// Or its text changed: the queue holds it already.
			if rerr := p.opts.Store.RequeueCapture(settle, c.ID, p.opts.Store.Now(), false); store.ErrorCode(rerr) == store.ENOTFOUND {
				log.Info("capture deleted or changed during its run; result dropped")
			} else if rerr == nil {
				p.captureChanged(settle, log, c.UserID, c.ID)
			}
			return false
		}
	}
	switch {
	case err == nil:
		p.gate.worked()
		log.Info("capture processed", "segments", len(a.Segments), "language", a.Language, "duration_ms", time.Since(start).Milliseconds())
		p.captureChanged(settle, log, c.UserID, c.ID)
		p.analysed(settle, ctx, log, c.UserID)
	case ctx.Err() != nil:
		p.requeue(settle, log, c, false)
	case fault(err):
		// Never the capture's fault: it waits in the queue, behind the
		// others, while the gate holds every worker back. The gate logs.
		log.Debug("model call failed; capture back in the queue", "error", err)
		p.requeue(settle, log, c, true)
		p.detectPending(settle, log)
		return true
	case unusableRun(err) && (p.unusableDuring(mark) || !p.modelAnswers(ctx)):
		// The model answers nothing usable, this capture or not, or did
		// while this run had its answers: a fault of the model server,
		// like an outage. The capture waits. A run that had its answers
		// during such an outage asks the plain check too, which ends the
		// outage once the model answers it; its capture runs again then,
		// and fails only if its own answers still cannot be used.
		if p.unusableDuring(mark) && p.modelAnswers(ctx) {
			log.Debug("unusable answers during an outage of unusable answers; capture back in the queue", "error", err)
		} else {
			if ctx.Err() == nil {
				p.gate.shutUnusable(err)
			}
			log.Debug("unusable answers from a model that fails a plain check too; capture back in the queue", "error", err)
		}
		p.requeue(settle, log, c, false)
		p.detectPending(settle, log)
		return true
	default:
		p.fail(settle, ctx, log, c, err)
	}
	return false
}

// unusableDuring reports whether an outage of unusable answers lasted at
// some time since the gate's unusableMark was mark.
func (p *Pipeline) unusableDuring(mark uint64) bool {
	return mark%2 == 1 || p.gate.unusableMark() != mark
}

// redetect re-counts the user's patterns after their captures changed,
// then writes the descriptions they need.
func (p *Pipeline) redetect(settle, ctx context.Context, log *slog.Logger, userID string) {
	if err := p.opts.Detector.Detect(settle, userID); err != nil {
		log.Error("detect", "error", err)
		return
	}
	p.describeFor(ctx, log, userID)
}

func (p *Pipeline) requeue(ctx context.Context, log *slog.Logger, c *store.Capture, count bool) {
	if err := p.opts.Store.RequeueCapture(ctx, c.ID, p.opts.Store.Now(), count); err != nil {
		if store.ErrorCode(err) != store.ENOTFOUND {
			log.Error("requeue capture", "error", err)
		}
		return
	}
	p.captureChanged(ctx, log, c.UserID, c.ID)
}

// fail marks the capture failed, which removes what earlier runs found in
// it, and re-counts its user's patterns without it when that is due.
func (p *Pipeline) fail(settle, ctx context.Context, log *slog.Logger, c *store.Capture, reason error) {
	log.Error("capture failed; its text is kept", "reason", reason)
	if err := p.opts.Store.FailCapture(settle, c.ID); err != nil {
		if store.ErrorCode(err) != store.ENOTFOUND {
			log.Error("mark capture failed", "error", err)
		}
		return
	}
	p.captureChanged(settle, log, c.UserID, c.ID)
	p.analysed(settle, ctx, log, c.UserID)
}
