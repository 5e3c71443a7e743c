package pipeline

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// Detection counts a user's whole journal, so it does not run after every
// entry of a backlog (an import, a burst of entries, the queue after an
// outage): it runs once the user's ready entries are analysed, and while
// more wait, after Options.DetectEvery entries (DefaultDetectEvery) or once
// the first entry not counted yet was analysed DetectAfter ago, whichever
// comes first. An entry written alone is counted at once, as before. One
// user's detection never runs twice at once: a run asked for meanwhile is
// made once, after it.
const (
	DefaultDetectEvery = 100
	DetectAfter        = 30 * time.Second
)

// detections is what the pipeline knows of detection runs due and running.
type detections struct {
	mu    sync.Mutex
	users map[string]*userDetection
}

// userDetection is one user's: the entries analysed since their last
// detection began, since when, and whether one runs (and must run again).
type userDetection struct {
	pending        int
	since          time.Time
	running, again bool
}

// user returns the user's state, making it; the caller holds mu.
func (d *detections) user(userID string) *userDetection {
	if d.users == nil {
		d.users = map[string]*userDetection{}
	}
	u, ok := d.users[userID]
	if !ok {
		u = &userDetection{}
		d.users[userID] = u
	}
	return u
}

// analysed is told that a run of the user's ended (processed or failed)
// and detects their patterns when that is due: when no other entry of
// theirs is ready, or the bounds of Options.DetectEvery and DetectAfter are
// met.
func (p *Pipeline) analysed(settle, ctx context.Context, log *slog.Logger, userID string) {
	now := p.opts.Store.Now()
	p.det.mu.Lock()
	u := p.det.user(userID)
	if u.pending == 0 {
		u.since = now
	}
	u.pending++
	due := u.pending >= p.opts.DetectEvery || now.Sub(u.since) >= DetectAfter
	p.det.mu.Unlock()
	if !due {
		ready, err := p.opts.Store.HasReadyCapture(settle, userID)
		if err != nil {
			log.Warn("read the queue; detecting now", "error", err)
		}
		due = err != nil || !ready
	}
	if due {
		p.detectNow(settle, ctx, log, userID)
	}
}

// detectNow re-counts the user's patterns and writes their descriptions,
// unless a detection of theirs runs already: that one then runs again once
// it ends, and this call returns at once.
func (p *Pipeline) detectNow(settle, ctx context.Context, log *slog.Logger, userID string) {
	p.det.mu.Lock()
	u := p.det.user(userID)
	if u.running {
		u.again = true
		p.det.mu.Unlock()
		return
	}
	u.running = true
	for {
		u.pending, u.again = 0, false
		p.det.mu.Unlock()
		p.redetect(settle, ctx, log, userID)
		p.det.mu.Lock()
		if !u.again {
			break
		}
	}
	u.running = false
	if u.pending == 0 {
		delete(p.det.users, userID)
	}
	p.det.mu.Unlock()
}

// detectPending runs the detections put off for users whose entries still
// waited then: called when the queue has nothing ready, so that entries
// deleted from the queue, or left in it by an outage, hold back no one's
// patterns.
func (p *Pipeline) detectPending(ctx context.Context, log *slog.Logger) {
	p.det.mu.Lock()
	var users []string
	for id, u := range p.det.users {
		if u.pending > 0 && !u.running {
			users = append(users, id)
		}
	}
	p.det.mu.Unlock()
	for _, id := range users {
		p.detectNow(context.WithoutCancel(ctx), ctx, log.With("user_id", id), id)
	}
}
