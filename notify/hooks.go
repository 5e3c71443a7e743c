package notify

import (
	"context"

	"github.com/recur-journal/recur/pipeline"
	"github.com/recur-journal/recur/store"
)

// CaptureData is the data of capture.processed and capture.failed.
type CaptureData struct {
	ID        string `json:"id"`
	Status    string `json:"status"`
	UpdatedAt string `json:"updated_at"`
}

// PatternData is the data of the pattern events.
type PatternData struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Kind      string `json:"kind"`
	Sentiment string `json:"sentiment"`
	Impact    string `json:"impact"`
	Urgent    bool   `json:"urgent"`
	State     string `json:"state"` // open or closed
}

// Watch returns a pipeline.Watcher that tells next everything and records
// capture.processed and capture.failed for users whose webhooks want them.
// next may be nil.
func (n *Notifier) Watch(next pipeline.Watcher) pipeline.Watcher { return watcher{next: next, n: n} }

type watcher struct {
	next pipeline.Watcher
	n    *Notifier
}

func (w watcher) Watching(userID string) bool {
	return (w.next != nil && w.next.Watching(userID)) || w.n.wants(context.Background(), userID, CaptureProcessed, CaptureFailed)
}

func (w watcher) CaptureChanged(c *store.Capture) {
	if w.next != nil {
		w.next.CaptureChanged(c)
	}
	typ := map[store.CaptureStatus]string{store.StatusProcessed: CaptureProcessed, store.StatusFailed: CaptureFailed}[c.Status]
	if typ != "" {
		w.n.Emit(context.Background(), c.UserID, typ, CaptureData{ID: c.ID, Status: string(c.Status), UpdatedAt: store.FormatTime(c.UpdatedAt)})
	}
}

func (w watcher) PatternFound(p *store.Pattern) {
	if w.next != nil {
		w.next.PatternFound(p)
	}
}

// patternEvents are the events a detection run can cause.
var patternEvents = []string{PatternDetected, PatternUrgent, PatternReopened, PatternClosed}

// Detect returns a pipeline.Detector that runs next and, for users whose webhooks
// want pattern events, records what the run changed: a pattern listed for
// the first time (pattern.detected), one that turned urgent
// (pattern.urgent), one open again after it closed (pattern.reopened) and
// one that went quiet and closed (pattern.closed).
func (n *Notifier) Detect(next pipeline.Detector) pipeline.Detector {
	return detector{next: next, n: n}
}

type detector struct {
	next pipeline.Detector
	n    *Notifier
}

func (d detector) Detect(ctx context.Context, userID string) error {
	if !d.n.wants(ctx, userID, patternEvents...) {
		return d.next.Detect(ctx, userID)
	}
	before, err := d.patterns(ctx, userID)
	if err != nil {
		return err
	}
	if err := d.next.Detect(ctx, userID); err != nil {
		return err
	}
	after, err := d.patterns(ctx, userID)
	if err != nil {
		d.n.opts.Logger.Warn("read patterns after detection", "user_id", userID, "error", err)
		return nil
	}
	for _, p := range after {
		was, known := before[p.ID]
		for _, typ := range patternChanges(was, known, p) {
			d.n.Emit(ctx, userID, typ, patternData(p))
		}
	}
	return nil
}

// patternChanges names the events between a pattern as it was (known is
// false when it was not listed) and as it is.
func patternChanges(was *store.Pattern, known bool, is *store.Pattern) []string {
	open := is.ClosedAt == nil
	var out []string
	switch {
	case !known && open:
		out = append(out, PatternDetected)
	case known && was.ClosedAt != nil && open:
		out = append(out, PatternReopened)
	case known && was.ClosedAt == nil && !open:
		out = append(out, PatternClosed)
	}
	if open && is.Urgent && (!known || !was.Urgent || was.ClosedAt != nil) {
		out = append(out, PatternUrgent)
	}
	return out
}

func patternData(p *store.Pattern) PatternData {
	return PatternData{ID: p.ID, Name: p.Name, Kind: string(p.Kind), Sentiment: p.Sentiment, Impact: p.Impact, Urgent: p.Urgent, State: string(p.State())}
}

// patterns returns the user's listed patterns, open and closed, by id.
func (d detector) patterns(ctx context.Context, userID string) (map[string]*store.Pattern, error) {
	list, err := d.n.opts.Store.AllPatterns(ctx, userID, nil)
	out := map[string]*store.Pattern{}
	for i := range list {
		out[list[i].ID] = &list[i]
	}
	return out, err
}
