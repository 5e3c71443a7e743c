package detect

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sync"
	"time"

	"github.com/recur-journal/recur/store"
)

// Detector runs detection for a user over what the store holds and saves
// the result. Runs of one user are serialised.
type Detector struct {
	store *store.Store
	now   func() time.Time
	locks sync.Map // user id -> *sync.Mutex
}

// NewDetector returns a Detector over s; now nil means time.Now.
func NewDetector(s *store.Store, now func() time.Time) *Detector {
	if now == nil {
		now = time.Now
	}
	return &Detector{store: s, now: now}
}

// Detect re-counts the user's patterns, correlations and flows.
func (d *Detector) Detect(ctx context.Context, userID string) error {
	mu, _ := d.locks.LoadOrStore(userID, &sync.Mutex{})
	mu.(*sync.Mutex).Lock()
	defer mu.(*sync.Mutex).Unlock()

	facts, err := d.store.DetectionFacts(ctx, userID)
	if err != nil {
		return err
	}
	loc, err := d.store.Location(ctx, userID)
	if err != nil {
		return err
	}
	return d.store.SaveDetection(ctx, userID, toStore(Run(InputFrom(facts, d.now(), loc))))
}

// InputFrom turns stored facts into detection input.
func InputFrom(f *store.Facts, now time.Time, loc *time.Location) Input {
	in := Input{Now: now, Location: loc,
		Captures:   make([]Capture, len(f.Captures)),
		Segments:   make([]Segment, len(f.Segments)),
		Categories: make(map[string]Category, len(f.Categories)),
		Feelings:   make(map[string]Feeling, len(f.Feelings)),
	}
	for i, c := range f.Captures {
		in.Captures[i] = Capture{ID: c.ID, OccurredAt: c.OccurredAt}
	}
	for i, sg := range f.Segments {
		tags := make([]Tag, len(sg.Tags))
		for j, t := range sg.Tags {
			tags[j] = Tag(t)
		}
		in.Segments[i] = Segment{ID: sg.ID, CaptureID: sg.CaptureID, OccurredAt: sg.OccurredAt, Tags: tags}
	}
	for _, c := range f.Categories {
		in.Categories[c.ID] = Category{ID: c.ID, Kind: c.Kind, Name: c.Name, Rejected: c.Rejected}
	}
	for _, fl := range f.Feelings {
		in.Feelings[fl.ID] = Feeling{ID: fl.ID, Name: fl.Name, Valence: fl.Valence}
	}
	for _, p := range f.Patterns {
		in.Patterns = append(in.Patterns, Prior{ID: p.ID, CategoryID: p.CategoryID, Status: p.Status, Sentiment: p.Sentiment, ClosedAt: p.ClosedAt})
	}
	for _, c := range f.Correlations {
		in.Correlations = append(in.Correlations, PriorCorrelation(c))
	}
	return in
}

func toStore(patterns []Pattern) []store.DetectedPattern {
	out := make([]store.DetectedPattern, len(patterns))
	for i, p := range patterns {
		dp := store.DetectedPattern{ID: p.ID, CategoryID: p.CategoryID, Sentiment: p.Sentiment, Impact: p.Impact, Urgent: p.Urgent,
			Feelings: p.Feelings, CapturesCount: p.CapturesCount, LastSeen: p.LastSeen, ClosedAt: p.ClosedAt}
		if dp.Feelings == nil {
			dp.Feelings = []string{}
		}
		for _, c := range p.Correlations {
			dp.Correlations = append(dp.Correlations, store.DetectedCorrelation{TagID: c.TagID, Amount: c.Amount, Impact: c.Impact})
		}
		for _, f := range p.Flows {
			dp.Flows = append(dp.Flows, store.Flow{SegmentID: f.SegmentID, Trigger: f.Trigger, Feeling: f.Feeling, Behaviour: f.Behaviour})
		}
		dp.LinksHash = linksHash(p)
		dp.Loop = store.DetectedLoop{Lead: p.Lead}
		for _, l := range p.Related {
			dp.Loop.Related = append(dp.Loop.Related, store.DetectedLink(l))
		}
		out[i] = dp
	}
	return out
}

// linksHash sums up a pattern's correlations and flows.
func linksHash(p Pattern) string {
	h := sha256.New()
	for _, c := range p.Correlations {
		fmt.Fprintf(h, "c\x00%s\x00%d\x00%s\n", c.TagID, c.Amount, c.Impact)
	}
	for _, f := range p.Flows {
		fmt.Fprintf(h, "f\x00%s\x00%s\x00%s\x00%s\n", f.SegmentID, f.Trigger, f.Feeling, f.Behaviour)
	}
	return hex.EncodeToString(h.Sum(nil))
}
