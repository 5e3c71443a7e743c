package pipeline

import (
	"context"
	"log/slog"

	"github.com/recur-journal/recur/store"
)

// Watcher hears what the pipeline changes, for the pages a user has open.
// Its methods must not block.
type Watcher interface {
	// Watching reports whether anyone listens for the user's changes;
	// the pipeline reads what it would report only then.
	Watching(userID string) bool
	// CaptureChanged reports a capture's status after a change.
	CaptureChanged(c *store.Capture)
	// PatternFound reports a pattern detection made or opened again.
	PatternFound(p *store.Pattern)
}

// captureChanged reports the capture as it now stands.
func (p *Pipeline) captureChanged(ctx context.Context, log *slog.Logger, userID, id string) {
	w := p.opts.Watcher
	if w == nil || !w.Watching(userID) {
		return
	}
	c, err := p.opts.Store.FindCaptureState(ctx, id)
	if err != nil {
		if store.ErrorCode(err) != store.ENOTFOUND {
			log.Warn("read capture to report its status", "error", err)
		}
		return
	}
	w.CaptureChanged(c)
}

// watchedDetector reports the patterns a detection run opened: those open
// after it that were not open before.
type watchedDetector struct {
	Detector
	store   *store.Store
	watcher Watcher
}

// Detect implements Detector.
func (d watchedDetector) Detect(ctx context.Context, userID string) error {
	if !d.watcher.Watching(userID) {
		return d.Detector.Detect(ctx, userID)
	}
	before, err := d.open(ctx, userID)
	if err != nil {
		return err
	}
	if err := d.Detector.Detect(ctx, userID); err != nil {
		return err
	}
	after, err := d.open(ctx, userID)
	if err != nil {
		return err
	}
	for id, pt := range after {
		if _, ok := before[id]; !ok {
			d.watcher.PatternFound(pt)
		}
	}
	return nil
}

// open returns the user's listed open patterns by id.
func (d watchedDetector) open(ctx context.Context, userID string) (map[string]*store.Pattern, error) {
	state := store.PatternOpen
	list, err := d.store.AllPatterns(ctx, userID, &state)
	out := map[string]*store.Pattern{}
	for i := range list {
		out[list[i].ID] = &list[i]
	}
	return out, err
}
