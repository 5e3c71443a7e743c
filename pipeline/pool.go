package pipeline

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"
)

// Pool shares calls among several model servers (endpoints). Each takes
// at most its own number of calls at once; a call goes to a working
// endpoint with a free slot, the one with the most free, and of as many
// free, the one given the fewest calls (so that calls one after the other
// take turns rather than all going to the first). An endpoint whose
// call fails (it cannot be reached, lacks the model, times out, answers
// 429 or 5xx) is paused with backoff, and the call is made again on
// another, so nothing fails or waits while one endpoint answers. Only when
// every endpoint has failed the call does it fail, and the pipeline's
// outage begins.
type Pool struct {
	log       *slog.Logger
	base, max time.Duration

	mu        sync.Mutex
	endpoints []*endpoint
	changed   chan struct{} // closed and replaced when a slot frees or a pause ends
}

var _ Provider = (*Pool)(nil)

type endpoint struct {
	url         string
	model       Provider
	slots, busy int
	given       int       // calls given it so far
	step        int       // calls failed in a row
	pausedUntil time.Time // no call goes here before then, unless every other endpoint failed it
}

// NewPool returns a pool of the providers, by their URLs, each taking
// slots calls at once. Failed endpoints are paused from base, doubling up
// to max.
func NewPool(urls []string, providers []Provider, slots int, base, max time.Duration, log *slog.Logger) *Pool {
	p := &Pool{log: log, base: base, max: max, changed: make(chan struct{})}
	for i, m := range providers {
		p.endpoints = append(p.endpoints, &endpoint{url: publicURL(urls[i]), model: m, slots: max1(slots)})
	}
	return p
}

func max1(n int) int { return max(n, 1) }

// Chat implements Model.
func (p *Pool) Chat(ctx context.Context, req ChatRequest) (ChatResult, error) {
	var res ChatResult
	err := p.each(ctx, func(m Provider) error {
		var err error
		res, err = m.Chat(ctx, req)
		return err
	})
	return res, err
}

// Embed implements Model.
func (p *Pool) Embed(ctx context.Context, inputs []string) ([][]float32, error) {
	var v [][]float32
	err := p.each(ctx, func(m Provider) error {
		var err error
		v, err = m.Embed(ctx, inputs)
		return err
	})
	return v, err
}

// each makes the call on one endpoint after another, each at most once,
// until one does not fail it by its own fault.
func (p *Pool) each(ctx context.Context, call func(Provider) error) error {
	tried := make(map[*endpoint]bool, len(p.endpoints))
	var last error
	for len(tried) < len(p.endpoints) {
		ep, err := p.acquire(ctx, tried)
		if err != nil {
			return err
		}
		tried[ep] = true
		last = call(ep.model)
		p.release(ep, last)
		if !fault(last) || errors.Is(last, context.Canceled) {
			return last
		}
	}
	return last
}

// acquire takes a slot on the best endpoint not yet tried: a working one
// with the most free slots, else the paused one whose pause ends first.
// It waits while every candidate's slots are taken.
func (p *Pool) acquire(ctx context.Context, tried map[*endpoint]bool) (*endpoint, error) {
	for {
		p.mu.Lock()
		now := time.Now()
		var best *endpoint
		better := func(a, b *endpoint) bool {
			aPaused, bPaused := now.Before(a.pausedUntil), now.Before(b.pausedUntil)
			if aPaused != bPaused {
				return !aPaused
			}
			if aPaused {
				return a.pausedUntil.Before(b.pausedUntil)
			}
			if a.slots-a.busy != b.slots-b.busy {
				return a.slots-a.busy > b.slots-b.busy
			}
			return a.given < b.given
		}
		working := false
		for _, ep := range p.endpoints {
			if tried[ep] {
				continue
			}
			if !now.Before(ep.pausedUntil) {
				working = true
			}
			if ep.busy < ep.slots && (best == nil || better(ep, best)) {
				best = ep
			}
		}
		// A paused endpoint takes a call only once every working one has
		// failed it, or when none works.
		if best != nil && (!now.Before(best.pausedUntil) || !working) {
			best.busy++
			best.given++
			p.mu.Unlock()
			return best, nil
		}
		changed := p.changed
		p.mu.Unlock()
		if err := sleep(ctx, changed, time.Second); err != nil { // a second: a pause may end meanwhile
			return nil, err
		}
	}
}

// release frees the slot and records how the call went.
func (p *Pool) release(ep *endpoint, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	ep.busy--
	switch {
	case err == nil || !fault(err):
		if ep.step > 0 {
			p.log.Info("model server answers again; it takes calls", "url", ep.url, "failed_calls", ep.step)
		}
		ep.step, ep.pausedUntil = 0, time.Time{}
	case errors.Is(err, context.Canceled):
	default:
		if ep.step == 0 {
			p.log.Warn("model server fails; its calls go to the others while it is paused", "url", ep.url, "error", err)
		}
		d := max(backoff(p.base, p.max, ep.step), min(waitAsked(err), p.max))
		ep.step++
		ep.pausedUntil = time.Now().Add(d)
	}
	close(p.changed)
	p.changed = make(chan struct{})
}

// EndpointState is one endpoint's state, as the detailed health check
// shows it.
type EndpointState struct {
	Status
	// PausedUntil, when not zero, is when the endpoint takes calls again
	// after its last one failed.
	PausedUntil time.Time
	// InFlight is how many calls it is answering now, of Slots.
	InFlight, Slots int
}

// Check checks every endpoint. The pool works while one of them does: a
// problem is reported only when none does, and then it names each.
func (p *Pool) Check(ctx context.Context) Status {
	st, _ := p.CheckEach(ctx)
	return st
}

// CheckEach checks every endpoint once and returns what Check returns with
// each endpoint's state, in the order configured.
func (p *Pool) CheckEach(ctx context.Context) (Status, []EndpointState) {
	states := p.Endpoints(ctx)
	var urls, problems []string
	var ok *Status
	for i, ep := range p.endpoints {
		st := states[i].Status
		urls = append(urls, ep.url)
		if st.Problem == "" && ok == nil {
			ok = &st
		} else if st.Problem != "" {
			problems = append(problems, st.Problem)
		}
	}
	if ok != nil {
		st := *ok
		st.URL = strings.Join(urls, ", ")
		return st, states
	}
	st := states[0].Status
	st.URL = strings.Join(urls, ", ")
	st.Problem = fmt.Sprintf("None of the %d model servers works: %s", len(p.endpoints), strings.Join(problems, " "))
	return st, states
}

// Endpoints checks every endpoint at once and returns each one's state, in
// the order configured: whether it answers and has the models, whether it
// is paused, and the calls it is answering.
func (p *Pool) Endpoints(ctx context.Context) []EndpointState {
	states := make([]EndpointState, len(p.endpoints))
	var wg sync.WaitGroup
	for i, ep := range p.endpoints {
		wg.Go(func() { states[i].Status = ep.model.Check(ctx) })
	}
	wg.Wait()
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	for i, ep := range p.endpoints {
		states[i].InFlight, states[i].Slots = ep.busy, ep.slots
		if now.Before(ep.pausedUntil) {
			states[i].PausedUntil = ep.pausedUntil
		}
	}
	return states
}

// EndpointStates is the state of each endpoint of p: a pool's, or the one
// server of any other provider (its slots not known).
func EndpointStates(ctx context.Context, p Provider) []EndpointState {
	if pool, ok := p.(*Pool); ok {
		return pool.Endpoints(ctx)
	}
	return []EndpointState{{Status: p.Check(ctx)}}
}
