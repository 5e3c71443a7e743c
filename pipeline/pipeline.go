package pipeline

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/recur-journal/recur/store"
)

// Detector re-counts a user's patterns after their captures change.
type Detector interface {
	Detect(ctx context.Context, userID string) error
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
	// Detector runs after each committed run; nil means NoDetection.
	Detector Detector
	// Poll is how often idle workers look for work they were not told of
	// (a backoff that ended); 0 means one second.
	Poll time.Duration
	// Backoff is the first wait after Ollama could not be reached or failed;
	// it doubles up to MaxBackoff. 0 means 2s and 1m.
	Backoff, MaxBackoff time.Duration
	// MaxAttempts is how many transient failures (timeouts, server errors)
	// a capture survives before it fails; 0 means 5.
	MaxAttempts int
}

// Pipeline is the analysis queue and its workers. The queue is the captures
// table itself, so nothing is lost when the process stops.
type Pipeline struct {
	opts     Options
	wake     chan struct{}
	describe chan string // users whose pattern descriptions need writing
	cancel   context.CancelFunc
	wg       sync.WaitGroup
	down     atomic.Int32 // consecutive runs that found Ollama unavailable
	running  atomic.Int32
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
	if opts.Poll <= 0 {
		opts.Poll = time.Second
	}
	if opts.Backoff <= 0 {
		opts.Backoff = 2 * time.Second
	}
	if opts.MaxBackoff <= 0 {
		opts.MaxBackoff = time.Minute
	}
	if opts.MaxAttempts <= 0 {
		opts.MaxAttempts = 5
	}
	return &Pipeline{opts: opts, wake: make(chan struct{}, opts.Workers), describe: make(chan string, 256)}
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
	log := p.opts.Logger.With("user_id", userID)
	if err := p.writeDescriptions(ctx, log, userID); err != nil {
		log.Warn("pattern descriptions not written", "error", err)
	}
	return nil
}

// Workers is the number of workers.
func (p *Pipeline) Workers() int { return p.opts.Workers }

// Waiting reports whether analysis is paused because Ollama cannot be reached.
func (p *Pipeline) Waiting() bool { return p.down.Load() > 0 }

// ProcessNext claims one ready capture and analyses it, in the caller's
// goroutine. It reports false when no capture was ready.
func (p *Pipeline) ProcessNext(ctx context.Context) (bool, error) {
	c, err := p.opts.Store.ClaimCapture(ctx)
	if store.ErrorCode(err) == store.ENOTFOUND {
		return false, nil
	} else if err != nil {
		return false, err
	}
	p.process(ctx, p.opts.Logger.With("capture_id", c.ID, "user_id", c.UserID), c)
	return true, nil
}

func (p *Pipeline) work(ctx context.Context, n int) {
	defer p.wg.Done()
	log := p.opts.Logger.With("worker", n)
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		c, err := p.opts.Store.ClaimCapture(ctx)
		switch {
		case err == nil:
			p.process(ctx, log.With("capture_id", c.ID, "user_id", c.UserID), c)
			continue
		case ctx.Err() != nil:
			return
		case store.ErrorCode(err) != store.ENOTFOUND:
			log.Error("claim capture", "error", err)
		}
		timer.Reset(p.opts.Poll)
		select {
		case <-ctx.Done():
			return
		case <-p.wake:
		case <-timer.C:
		case userID := <-p.describe:
			if err := p.writeDescriptions(ctx, log.With("user_id", userID), userID); err != nil {
				log.Warn("pattern descriptions not written", "user_id", userID, "error", err)
			}
		}
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
	}
}

// process analyses one claimed capture and settles its status.
func (p *Pipeline) process(ctx context.Context, log *slog.Logger, c *store.Capture) {
	p.running.Add(1)
	defer p.running.Add(-1)
	start := time.Now()
	r := &runner{store: p.opts.Store, model: p.opts.Model, modelName: p.opts.ModelName, log: log, capture: c}
	a, err := r.analyse(ctx)
	// Settling must happen even when shutdown cancelled the run.
	settle := context.WithoutCancel(ctx)
	if err == nil {
		err = p.opts.Store.CommitAnalysis(settle, a)
		if store.ErrorCode(err) == store.ENOTFOUND {
			// Deleted while it was analysed: nothing of it may be left.
			// Or a category it joined was pruned by a delete meanwhile: run it again.
			if rerr := p.opts.Store.RequeueCapture(settle, c.ID, p.opts.Store.Now(), false); store.ErrorCode(rerr) == store.ENOTFOUND {
				log.Info("capture deleted during its run; result dropped")
			}
			return
		}
	}
	switch {
	case err == nil:
		p.down.Store(0)
		log.Info("capture processed", "segments", len(a.Segments), "language", a.Language, "duration_ms", time.Since(start).Milliseconds())
		if err := p.opts.Detector.Detect(settle, c.UserID); err != nil {
			log.Error("detect", "error", err)
		} else if err := p.writeDescriptions(ctx, log, c.UserID); err != nil {
			log.Warn("pattern descriptions not written", "error", err)
		}
	case ctx.Err() != nil:
		p.requeue(settle, log, c, 0, false)
	case errors.Is(err, ErrUnavailable):
		n := p.down.Add(1)
		log.Warn("ollama unavailable; capture waits in the queue", "error", err)
		p.requeue(settle, log, c, p.backoff(int(n)), false)
	case errors.Is(err, ErrTransient):
		if c.Attempts+1 >= p.opts.MaxAttempts {
			p.fail(settle, log, c, err)
			return
		}
		log.Warn("model call failed; capture will be retried", "error", err, "attempt", c.Attempts+1)
		p.requeue(settle, log, c, p.backoff(c.Attempts+1), true)
	default:
		p.fail(settle, log, c, err)
	}
}

// backoff is the wait after the n-th consecutive failure.
func (p *Pipeline) backoff(n int) time.Duration {
	d := p.opts.Backoff
	for i := 1; i < n && d < p.opts.MaxBackoff; i++ {
		d *= 2
	}
	return min(d, p.opts.MaxBackoff)
}

func (p *Pipeline) requeue(ctx context.Context, log *slog.Logger, c *store.Capture, wait time.Duration, count bool) {
	if err := p.opts.Store.RequeueCapture(ctx, c.ID, p.opts.Store.Now().Add(wait), count); err != nil && store.ErrorCode(err) != store.ENOTFOUND {
		log.Error("requeue capture", "error", err)
	}
}

func (p *Pipeline) fail(ctx context.Context, log *slog.Logger, c *store.Capture, reason error) {
	log.Error("capture failed; its text is kept", "reason", reason)
	if err := p.opts.Store.FailCapture(ctx, c.ID); err != nil && store.ErrorCode(err) != store.ENOTFOUND {
		log.Error("mark capture failed", "error", err)
	}
}
