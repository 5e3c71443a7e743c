package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"
)

// Outage is what the pipeline knows of calls to the model failing now.
type Outage struct {
	// Failing is true from the first call that failed (an error answer, a
	// time-out, a connection refused or cut) until a call succeeds again.
	Failing bool
	// Since is when the calls started failing; zero while they work.
	Since time.Time
	// LastError is the last failure's sentence; empty while calls work.
	LastError string
}

// Clock is the time the outage gate keeps its backoff by: the real clock
// (nil in Options), or one a test moves by hand.
type Clock interface {
	Now() time.Time
	// Sleep waits until d has passed on the clock, wake is closed or ctx
	// ends; in the last case it returns ctx's error.
	Sleep(ctx context.Context, d time.Duration, wake <-chan struct{}) error
}

// wallClock is the real clock.
type wallClock struct{}

var _ Clock = wallClock{}

func (wallClock) Now() time.Time { return time.Now() }

func (wallClock) Sleep(ctx context.Context, d time.Duration, wake <-chan struct{}) error {
	return sleep(ctx, wake, d)
}

// gate is the one switch every worker passes before it claims a capture.
// While calls to the model fail it is shut: workers wait on it without
// touching the database, and one of them at a time is let through as the
// probe, once per backoff step. The probe's run is the next capture's:
// it tries exactly the calls that failed (a version check would pass
// while a crashed runner still answers 500), and costs nothing extra when
// it works. The first call that succeeds opens the gate for every worker.
type gate struct {
	base, max time.Duration
	clock     Clock
	log       *slog.Logger

	mu        sync.Mutex
	failing   bool
	unusable  bool   // the outage is of answers that cannot be used, not of failed calls
	unusables uint64 // outages of unusable answers begun so far
	since     time.Time
	lastErr   string
	step      int       // failed probes since the outage began
	probeAt   time.Time // when the next probe may go
	probing   bool      // a probe is out
	asked     time.Time // the server asked not to be called before then (Retry-After)
	open      chan struct{}
}

func newGate(base, max time.Duration, clock Clock, log *slog.Logger) *gate {
	open := make(chan struct{})
	close(open)
	return &gate{base: base, max: max, clock: clock, log: log, open: open}
}

// delay is the wait before the probe after step failed ones: the base
// doubled per step up to the cap, less a random quarter so that several
// Recur processes sharing one Ollama do not probe in step.
func (g *gate) delay(step int) time.Duration { return backoff(g.base, g.max, step) }

// backoff is the wait after step failures: base doubled per step up to
// max, less a random quarter.
func backoff(base, max time.Duration, step int) time.Duration {
	d := base
	for i := 0; i < step && d < max; i++ {
		d *= 2
	}
	d = min(d, max)
	return d - rand.N(d/4+1)
}

// state reports the outage, if any.
func (g *gate) state() Outage {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.failing {
		return Outage{}
	}
	return Outage{Failing: true, Since: g.since, LastError: g.lastErr}
}

// admit reports whether a worker may claim a capture now and, while calls
// fail, whether its run is the probe. When it may not, wait is how long
// until the next probe may go (negative while a probe is out) and open is
// closed once calls work again.
func (g *gate) admit() (ok, probe bool, open <-chan struct{}, wait time.Duration) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.failing {
		return true, false, nil, 0
	}
	if g.probing {
		return false, false, g.open, -1
	}
	if wait = g.probeAt.Sub(g.clock.Now()); wait > 0 {
		return false, false, g.open, wait
	}
	g.probing = true
	return true, true, nil, 0
}

// pass waits until the worker may claim a capture, and reports whether its
// run is the probe. It returns ctx's error when ctx ends first.
func (g *gate) pass(ctx context.Context) (probe bool, err error) {
	for {
		ok, probe, open, wait := g.admit()
		if ok {
			return probe, nil
		}
		if wait < 0 {
			wait = time.Hour // a probe is out: its end opens the gate or sets the next one
		}
		if err := g.clock.Sleep(ctx, wait, open); err != nil {
			return false, err
		}
	}
}

// sleep waits until ch is closed or d has passed. It returns ctx's error
// when ctx ends first.
func sleep(ctx context.Context, ch <-chan struct{}, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-ch:
	case <-t.C:
	}
	return nil
}

// done ends a probe. faulted says its run ended because a call failed: the
// next probe waits one more step. A probe that made no call (nothing was
// ready) leaves the next one due at once.
func (g *gate) done(probe, faulted bool) {
	if !probe {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.probing = false
	if g.failing && faulted {
		g.step++
		g.probeAt = later(g.clock.Now().Add(g.delay(g.step)), g.asked)
	}
}

// report records how a call went: a fault shuts the gate (and starts an
// outage, logged once), a success opens it (and ends the outage, logged
// once with its length) unless the outage is of unusable answers, which
// only a usable one ends (worked). Cancellation says nothing of the model
// server.
func (g *gate) report(err error) {
	switch {
	case err == nil:
		g.recover(false)
	case fault(err):
		g.shut(err, false)
	}
}

// worked records a usable answer: a run that committed, or a plain check
// the model passed. It ends any outage.
func (g *gate) worked() { g.recover(true) }

// unusableMark changes whenever an outage of unusable answers begins, and
// is odd while one lasts. A run that saw it odd, or saw it change, had its
// answers while the model answered nothing usable to anyone.
func (g *gate) unusableMark() uint64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	m := 2 * g.unusables
	if g.failing && g.unusable {
		m++
	}
	return m
}

// shutUnusable starts an outage of unusable answers: the model answers,
// but not with output that can be used, even to a plain check.
func (g *gate) shutUnusable(err error) { g.shut(err, true) }

func (g *gate) recover(usable bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.failing || (g.unusable && !usable) {
		return
	}
	// A probe still out keeps its place until its run ends (done),
	// so that there is never more than one.
	g.failing, g.unusable = false, false
	close(g.open)
	g.log.Info("calls to the model server work again; analysis resumes", "outage", g.clock.Now().Sub(g.since).Round(time.Millisecond).String(),
		"failed_probes", g.step)
}

func (g *gate) shut(err error, unusable bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.lastErr = err.Error()
	if wait := waitAsked(err); wait > 0 {
		g.asked = g.clock.Now().Add(min(wait, g.max))
	}
	if unusable && (!g.failing || g.unusable) {
		g.unusables++
	}
	if g.failing {
		g.unusable = g.unusable && unusable
		return
	}
	g.failing, g.unusable, g.since, g.step = true, unusable, g.clock.Now(), 0
	g.probeAt = later(g.since.Add(g.delay(0)), g.asked)
	g.open = make(chan struct{})
	msg := "calls to the model server fail; analysis waits and retries with backoff"
	if unusable {
		msg = "The model server answers with output that cannot be used, even to a plain check; analysis waits and retries with backoff"
	}
	g.log.Warn(msg, "error", err, "backoff_from", g.base.String(), "backoff_to", g.max.String())
}

// later is the later of two times.
func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// fault reports whether err is the model server's fault rather than the
// capture's: it could not be reached, lacked the model, timed out, failed
// or cut its answer short.
func fault(err error) bool {
	return errors.Is(err, ErrUnavailable) || errors.Is(err, ErrTransient)
}

// gatedModel reports the outcome of every call to the gate.
type gatedModel struct {
	Model
	gate *gate
}

// Chat implements Model.
func (m gatedModel) Chat(ctx context.Context, req ChatRequest) (ChatResult, error) {
	res, err := m.Model.Chat(ctx, req)
	m.gate.report(err)
	return res, err
}

// Embed implements Model.
func (m gatedModel) Embed(ctx context.Context, inputs []string) ([][]float32, error) {
	v, err := m.Model.Embed(ctx, inputs)
	m.gate.report(err)
	return v, err
}

// checkRequest is the plain check asked of the model when a run ends with
// unusable answers: a model that can answer it with a JSON object works,
// and the run failed for its capture's own reasons.
var checkRequest = ChatRequest{Step: "check", MaxTokens: 20,
	System: "You check that you can answer. Reply with the JSON object {\"ok\": true} and nothing else.",
	User:   "Are you there?",
	Schema: json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}}}`)}

// modelAnswers asks the model the plain check and reports whether its
// answer is a JSON object. When it is, any outage of unusable answers ends.
func (p *Pipeline) modelAnswers(ctx context.Context) bool {
	res, err := p.model.Chat(ctx, checkRequest)
	if err != nil || res.Truncated {
		return false
	}
	var v map[string]any
	if json.Unmarshal([]byte(res.Content), &v) != nil {
		return false
	}
	p.gate.worked()
	return true
}

// unusableRun reports whether a run ended because the model's answers could
// not be used, after the retries, or the model server refused a request.
func unusableRun(err error) bool {
	var u *unusable
	var r *Refused
	return errors.As(err, &u) || errors.As(err, &r)
}
