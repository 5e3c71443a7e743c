package detect

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"strconv"
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
	seen  seenDays
	facts store.FactsCache
}

// NewDetector returns a Detector over s; now nil means the store's clock.
func NewDetector(s *store.Store, now func() time.Time) *Detector {
	if now == nil {
		now = s.Now
	}
	return &Detector{store: s, now: now}
}

// Detect re-counts the user's patterns, correlations and flows. It keeps
// the user's journal as it read it (see store.FactsCache), so the next run
// reads only what changed since.
func (d *Detector) Detect(ctx context.Context, userID string) error {
	mu, _ := d.locks.LoadOrStore(userID, &sync.Mutex{})
	mu.(*sync.Mutex).Lock()
	defer mu.(*sync.Mutex).Unlock()

	last := d.seen.last(userID)
	d.seen.keep(userID, nil) // until this run is saved
	facts, err := d.store.CachedDetectionFacts(ctx, &d.facts, userID)
	if err != nil {
		return err
	}
	loc, err := d.store.Location(ctx, userID)
	if err != nil {
		return err
	}
	in := InputFrom(facts, d.now(), loc)
	in.keepFrom(last, facts)
	patterns := Run(in)
	var lastLinks map[string]*summed
	if last != nil {
		lastLinks = last.links
	}
	result, links := toStore(patterns, lastLinks)
	if err := d.store.SaveDetection(ctx, userID, result); err != nil {
		return err
	}
	s := &seen{loc: loc.String(), byPattern: make(map[string]days, len(result)), captures: make(map[string]int, len(result)), links: links}
	for i, p := range result {
		if p.ID != "" {
			s.byPattern[p.ID] = patterns[i].own
			s.captures[p.ID] = patterns[i].CapturesCount
			s.origin = patterns[i].origin
		}
	}
	d.seen.keep(userID, s)
	return d.store.PruneDetectionChanges(ctx, &d.facts, userID)
}

// InputFrom turns stored facts into detection input.
func InputFrom(f *store.Facts, now time.Time, loc *time.Location) Input {
	in := Input{Now: now, Location: loc,
		Captures:   make([]Capture, len(f.Captures)),
		Stored:     f.Segments,
		Categories: make(map[string]Category, len(f.Categories)),
		Feelings:   make(map[string]Feeling, len(f.Feelings)),
	}
	for i, c := range f.Captures {
		in.Captures[i] = Capture{ID: c.ID, OccurredAt: c.OccurredAt}
	}
	// Segments name the user's tags by number, as the store read them.
	in.Tags = make([]Tag, len(f.Tags))
	for i, t := range f.Tags {
		in.Tags[i] = Tag(t)
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

// toStore turns the patterns into what is saved, taking the links of those
// whose links are the same as in last (see summed), and returns them and
// what the next run compares with.
func toStore(patterns []Pattern, last map[string]*summed) ([]store.DetectedPattern, map[string]*summed) {
	out := make([]store.DetectedPattern, len(patterns))
	next := make(map[string]*summed, len(patterns))
	var buf []byte
	for i, p := range patterns {
		dp := store.DetectedPattern{ID: p.ID, CategoryID: p.CategoryID, Sentiment: p.Sentiment, Impact: p.Impact, Urgent: p.Urgent,
			Feelings: p.Feelings, CapturesCount: p.CapturesCount, LastSeen: p.LastSeen, ClosedAt: p.ClosedAt}
		if dp.Feelings == nil {
			dp.Feelings = []string{}
		}
		next[p.CategoryID], buf = saveLinks(&dp, p, last[p.CategoryID], buf)
		if p.Lead != "" {
			dp.Loop = store.DetectedLoop{Lead: p.Lead, Related: make([]store.DetectedLink, len(p.Related))}
			for j, l := range p.Related {
				dp.Loop.Related[j] = store.DetectedLink(l)
			}
		}
		out[i] = dp
	}
	return out, next
}

// linksHash sums up a pattern's correlations and flows. The text it sums
// goes through buf, which it returns for the next pattern, a piece at a
// time: a pattern of ten years has some 50,000 flows, and growing one
// buffer to hold them all was a tenth of a run's time. The sum is the one
// of the whole text, so stored sums stay valid.
func linksHash(p Pattern, buf []byte) (string, []byte) {
	h := sha256.New()
	for _, c := range p.Correlations {
		buf = append(buf, "c\x00"...)
		buf = append(buf, c.TagID...)
		buf = append(buf, 0)
		buf = strconv.AppendInt(buf, int64(c.Amount), 10)
		buf = append(buf, 0)
		buf = append(buf, c.Impact...)
		buf = append(buf, '\n')
		buf = hashFull(h, buf)
	}
	for _, f := range p.Flows {
		buf = append(buf, "f\x00"...)
		buf = append(buf, f.SegmentID...)
		buf = append(buf, 0)
		buf = append(buf, f.Trigger...)
		buf = append(buf, 0)
		buf = append(buf, f.Feeling...)
		buf = append(buf, 0)
		buf = append(buf, f.Behaviour...)
		buf = append(buf, '\n')
		buf = hashFull(h, buf)
	}
	h.Write(buf)
	return hex.EncodeToString(h.Sum(nil)), buf[:0]
}

// hashPiece is how much of the text linksHash gathers before summing it.
const hashPiece = 16 << 10

// hashFull sums buf into h once it holds hashPiece, and returns it emptied
// then.
func hashFull(h hash.Hash, buf []byte) []byte {
	if len(buf) < hashPiece {
		return buf
	}
	h.Write(buf)
	return buf[:0]
}
