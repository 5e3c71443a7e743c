// Package detect finds what keeps coming back in a user's journal: patterns,
// the persons, locations and activities they occur with, and the flows of
// trigger, feeling and behaviour inside each situation. It is counting over
// stored facts, in plain Go over plain values, with no model, clock or
// database of its own: Run takes the facts and the time and returns the
// result.
package detect

import (
	"cmp"
	"slices"
	"time"

	"github.com/recur-journal/recur/store"
)

// The rules, as the README documents them.
const (
	// MinDays is how many different days a category must show up on, with
	// one same feeling, to be a pattern.
	MinDays = 3
	// QuietAfter is how long a pattern may go unseen before it closes.
	QuietAfter = 7 * 24 * time.Hour
	// UrgentDays and UrgentWindow: a pattern seen on UrgentDays different
	// days within the last UrgentWindow days (today included) is urgent.
	UrgentDays   = 3
	UrgentWindow = 7
	// MaxFeelings is how many feelings a pattern names.
	MaxFeelings = 4
	// Impact bands: the share of the days the user wrote on that the pattern
	// showed up on. Below LowBelow is low, below HighFrom moderate, else high.
	LowBelow = 0.15
	HighFrom = 0.35
	// Correlations: a tag needs MinSideDays days with it and MinSideDays
	// days without it; TopPerType are kept per type.
	MinSideDays = 3
	TopPerType  = 3
	// A correlation's impact comes from its lift: the pattern's rate on days
	// with the tag over its rate on days without. Below 1.5 is low, below
	// 2.5 moderate, else high.
	LiftModerate = 1.5
	LiftHigh     = 2.5
)

// CorrelatedTypes are the tag types correlations are made of.
var CorrelatedTypes = []store.TagType{store.TagPerson, store.TagLocation, store.TagActivity}

// Capture is a processed capture.
type Capture struct {
	ID         string
	OccurredAt time.Time
}

// Segment is a situation of a processed capture and its tags, in order.
type Segment struct {
	ID         string
	CaptureID  string
	OccurredAt time.Time
	Tags       []Tag
	// TagNumbers, when Input.Tags is given, name the segment's tags by
	// their place in it instead of Tags: a ten-year journal is some 120,000
	// tags of situations but a few thousand tags.
	TagNumbers []int32
}

// Tag is a tag as found in a segment.
type Tag struct {
	ID         string
	Type       store.TagType
	Name       string
	CategoryID string // triggers and behaviours
	FeelingID  string // feelings
}

// Category is a category of triggers or behaviours.
type Category struct {
	ID       string
	Kind     store.TagType // trigger, good_behaviour or bad_behaviour
	Name     string
	Rejected bool
}

// Feeling is a word of the vocabulary.
type Feeling struct {
	ID      string
	Name    string
	Valence int
}

// Prior is a pattern as it stands before this run.
type Prior struct {
	ID         string
	CategoryID string
	Status     store.PatternStatus
	Sentiment  string
	ClosedAt   *time.Time
}

// PriorCorrelation is a correlation the user reviewed.
type PriorCorrelation struct {
	PatternID string
	TagID     string
	Status    store.PatternStatus
}

// Input is everything detection counts over.
type Input struct {
	Now      time.Time
	Location *time.Location // the user's timezone: it cuts days
	Captures []Capture      // processed captures
	Segments []Segment
	// Stored, when given, are the segments as the store reads them, in
	// place of Segments: ten years are some 100,000, and copying them
	// into Segments for every run was a tenth of it.
	Stored       []store.SegmentFact
	Tags         []Tag // the tags Segment.TagNumbers (and Stored) name; nil when segments carry Tags
	Categories   map[string]Category
	Feelings     map[string]Feeling
	Patterns     []Prior
	Correlations []PriorCorrelation

	// kept are, by category id, the patterns whose flows the caller kept
	// from an earlier run, with the ties those flows were chosen by
	// (Pattern.ties); touched are the categories the segments changed
	// since then show, nil when not known. See keeping.
	kept    map[string][]tie
	touched map[string]bool
	// days and captures are, by pattern id, the days each pattern showed
	// up on and its captures, as the run kept from counted them, its days
	// numbered from daysFirst. See keptDays.
	days      map[string]days
	captures  map[string]int
	daysFirst int
}

// segments is how many segments the input holds.
func (in *Input) segments() int {
	if in.Stored != nil {
		return len(in.Stored)
	}
	return len(in.Segments)
}

// segment is the input's segment i, from Stored or Segments.
func (in *Input) segment(i int) Segment {
	if in.Stored != nil {
		sg := &in.Stored[i]
		return Segment{ID: sg.ID, CaptureID: sg.CaptureID, OccurredAt: sg.OccurredAt, TagNumbers: sg.Tags}
	}
	return in.Segments[i]
}

// segmentTime is the time of the input's segment i.
func (in *Input) segmentTime(i int) time.Time {
	if in.Stored != nil {
		return in.Stored[i].OccurredAt
	}
	return in.Segments[i].OccurredAt
}

// Pattern is a pattern as this run finds it. ID is empty for a new one.
type Pattern struct {
	ID            string
	CategoryID    string
	Name          string
	Sentiment     string
	Impact        string
	Urgent        bool
	Feelings      []string // feeling ids, most frequent first
	CapturesCount int
	LastSeen      time.Time
	ClosedAt      *time.Time
	Correlations  []Correlation
	Flows         []Flow
	// Related are the patterns resting on mostly the same situations, most
	// shared days first, and Lead is the category of the pattern that leads
	// the loop they make (see link); both are empty outside a loop.
	Related []Link
	Lead    string

	// own are the local days the pattern showed up on, numbered from
	// origin (see day): what Detector.LoopDays tells after the run.
	own    days
	origin int
	// flowsKept: Flows are nil, and the flows are those input.kept names.
	flowsKept bool
	ties      []tie // what the flows were chosen by (see tie)
}

// Correlation is a tag a pattern occurs with more than the user's baseline.
type Correlation struct {
	TagID  string
	Type   store.TagType
	Name   string
	Amount int // days seen together
	Impact string
	Lift   float64
}

// Flow is one situation of a pattern told in order.
type Flow struct {
	SegmentID string
	Trigger   string
	Feeling   string
	Behaviour string
}

// Run detects the patterns of one user. It returns every pattern that
// exists after the run, rejected ones excepted (they are left as they are).
func Run(in Input) []Pattern {
	x := newIndex(in)
	facts := x.count(&in)
	writtenDays := x.written.count()

	prior := make(map[string]Prior, len(in.Patterns))
	for _, p := range in.Patterns {
		prior[p.CategoryID] = p
	}
	reviewed := map[string]map[string]store.PatternStatus{} // pattern -> tag -> status
	for _, c := range in.Correlations {
		if reviewed[c.PatternID] == nil {
			reviewed[c.PatternID] = map[string]store.PatternStatus{}
		}
		reviewed[c.PatternID][c.TagID] = c.Status
	}

	var out []Pattern
	plans := make([]*flowPlan, len(x.categories))
	for catID, cat := range in.Categories {
		p, existed := prior[catID]
		if cat.Rejected || p.Status == store.PatternRejected {
			continue // rejected: left alone for good
		}
		var f *categoryFacts
		ci, seen := x.categories[catID]
		if seen && facts[ci].days != nil {
			f = &facts[ci]
		}
		qualifies := false
		if f != nil {
			for _, fd := range f.feelingDays {
				if fd != nil && fd.count() >= MinDays {
					qualifies = true
					break
				}
			}
		}
		if !qualifies && !existed {
			continue
		}
		var own days // the days of the pattern itself
		pat := Pattern{ID: p.ID, CategoryID: catID, Name: cat.Name, Sentiment: kindSentiment(cat.Kind, p.Sentiment), Impact: "low",
			origin: x.first}
		if f != nil {
			top := x.topFeelings(f, in.Feelings)
			pat.Feelings = make([]string, len(top))
			for i, fl := range top {
				pat.Feelings[i] = x.feelingIDs[fl]
			}
			pat.Sentiment = sentiment(cat.Kind, f, top, pat.Feelings, in.Feelings)
			var captures int
			var kept bool
			if own, captures, kept = in.keptDays(x, catID, p.ID); !kept {
				own, captures = x.patternDays(f, top)
			}
			pat.Impact = impact(own.count(), writtenDays)
			pat.CapturesCount = captures
			pat.LastSeen = f.lastSeen
			pat.Correlations = x.correlate(own, writtenDays, reviewed[p.ID])
			plans[ci] = &flowPlan{pattern: len(out), trigger: cat.Kind == store.TagTrigger, facts: f}
		}
		switch {
		case f == nil || own.count() == 0:
			// Every capture it rested on is gone (plain mentions of its
			// category are not it): it closes, accepted or not.
			pat.ClosedAt = closedAt(p.ClosedAt, in.Now)
		case p.Status == store.PatternAccepted:
			// Accepted patterns are exempt from the clean-up: quiet or
			// counted below the bar, they stay open.
		case !qualifies:
			pat.ClosedAt = closedAt(p.ClosedAt, in.Now)
		case in.Now.Sub(pat.LastSeen) >= QuietAfter:
			// Quiet: it closed a week after it was last seen, whatever
			// order the entries were analysed in.
			closed := pat.LastSeen.Add(QuietAfter)
			pat.ClosedAt = &closed
		}
		if pat.ClosedAt == nil && f != nil {
			pat.Urgent = urgent(own, x.today)
		}
		pat.own = own
		out = append(out, pat)
	}
	x.flows(plans, out, facts, &in)
	slices.SortFunc(out, func(a, b Pattern) int { return cmp.Compare(a.CategoryID, b.CategoryID) })
	x.link(out, in.Categories, facts)
	return out
}

// closedAt keeps the moment a pattern that lost its count closed, or
// closes it at at.
func closedAt(prev *time.Time, at time.Time) *time.Time {
	if prev != nil {
		return prev
	}
	return &at
}

// kindSentiment is the sentiment of a pattern no capture shows: good
// behaviour positive, bad behaviour negative, and a trigger the one it had
// (negative when it had none).
func kindSentiment(kind store.TagType, had string) string {
	switch {
	case kind == store.TagGoodBehaviour:
		return "positive"
	case kind == store.TagBadBehaviour:
		return "negative"
	case had == "positive":
		return had
	}
	return "negative"
}

func impact(days, written int) string {
	if written == 0 {
		return "low"
	}
	share := float64(days) / float64(written)
	switch {
	case share < LowBelow:
		return "low"
	case share < HighFrom:
		return "moderate"
	}
	return "high"
}

func urgent(seen days, today int) bool {
	n := 0
	for d := today - UrgentWindow + 1; d <= today; d++ {
		if seen.has(d) {
			n++
		}
	}
	return n >= UrgentDays
}

func liftImpact(lift float64) string {
	switch {
	case lift < LiftModerate:
		return "low"
	case lift < LiftHigh:
		return "moderate"
	}
	return "high"
}
