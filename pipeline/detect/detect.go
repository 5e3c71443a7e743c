// Package detect finds what keeps coming back in a user's journal: patterns,
// the persons, locations and activities they occur with, and the flows of
// trigger, feeling and behaviour inside each situation. It is counting over
// stored facts, in plain Go over plain values, with no model, clock or
// database of its own: Run takes the facts and the time and returns the
// result.
package detect

import (
	"cmp"
	"math"
	"slices"
	"time"
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

// Statuses of patterns and correlations.
const (
	Detected = "detected"
	Accepted = "accepted"
	Rejected = "rejected"
)

// Tag types detection looks at.
const (
	trigger         = "trigger"
	goodBehaviour   = "good_behaviour"
	badBehaviour    = "bad_behaviour"
	positiveFeeling = "positive_feeling"
	negativeFeeling = "negative_feeling"
)

// CorrelatedTypes are the tag types correlations are made of.
var CorrelatedTypes = []string{"person", "location", "activity"}

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
}

// Tag is a tag as found in a segment.
type Tag struct {
	ID         string
	Type       string
	Name       string
	CategoryID string // triggers and behaviours
	FeelingID  string // feelings
}

// Category is a category of triggers or behaviours.
type Category struct {
	ID       string
	Kind     string // trigger, good_behaviour or bad_behaviour
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
	Status     string
	Sentiment  string
	ClosedAt   *time.Time
}

// PriorCorrelation is a correlation the user reviewed.
type PriorCorrelation struct {
	PatternID string
	TagID     string
	Status    string
}

// Input is everything detection counts over.
type Input struct {
	Now          time.Time
	Location     *time.Location // the user's timezone: it cuts days
	Captures     []Capture      // processed captures
	Segments     []Segment
	Categories   map[string]Category
	Feelings     map[string]Feeling
	Patterns     []Prior
	Correlations []PriorCorrelation
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
}

// Correlation is a tag a pattern occurs with more than the user's baseline.
type Correlation struct {
	TagID  string
	Type   string
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

// categoryFacts gathers what one category's segments say.
type categoryFacts struct {
	segments     []*Segment
	days         days
	feelingDays  map[string]days
	feelingCount map[string]int
	captures     map[string]bool
	lastSeen     time.Time
}

// Run detects the patterns of one user. It returns every pattern that
// exists after the run, rejected ones excepted (they are left as they are).
func Run(in Input) []Pattern {
	loc := in.Location
	if loc == nil {
		loc = time.UTC
	}
	// Days are numbered from the journal's first day, as bits of a set.
	first := day(in.Now, loc)
	segDays := make([]int, len(in.Segments))
	capDays := make([]int, len(in.Captures))
	for i, c := range in.Captures {
		capDays[i] = day(c.OccurredAt, loc)
		first = min(first, capDays[i])
	}
	for i, sg := range in.Segments {
		segDays[i] = day(sg.OccurredAt, loc)
		first = min(first, segDays[i])
	}
	today := day(in.Now, loc) - first
	span := today + 1
	for i := range capDays {
		capDays[i] -= first
		span = max(span, capDays[i]+1)
	}
	for i := range segDays {
		segDays[i] -= first
		span = max(span, segDays[i]+1)
	}
	written := newDays(span)
	for _, d := range capDays {
		written.add(d)
	}

	facts := map[string]*categoryFacts{}
	tagDays := map[string]days{} // correlated tag -> days
	tagInfo := map[string]Tag{}
	var feelings []string
	for i := range in.Segments {
		sg := &in.Segments[i]
		d := segDays[i]
		feelings = feelings[:0]
		for _, t := range sg.Tags {
			if t.FeelingID != "" {
				feelings = append(feelings, t.FeelingID)
			}
			if t.Type == "person" || t.Type == "location" || t.Type == "activity" {
				td, ok := tagDays[t.ID]
				if !ok {
					td = newDays(span)
					tagDays[t.ID], tagInfo[t.ID] = td, t
				}
				td.add(d)
			}
		}
		for j, t := range sg.Tags {
			if t.CategoryID == "" || categoryBefore(sg.Tags[:j], t.CategoryID) {
				continue
			}
			f := facts[t.CategoryID]
			if f == nil {
				f = &categoryFacts{days: newDays(span), feelingDays: map[string]days{}, feelingCount: map[string]int{}, captures: map[string]bool{}}
				facts[t.CategoryID] = f
			}
			f.segments = append(f.segments, sg)
			f.days.add(d)
			f.captures[sg.CaptureID] = true
			if sg.OccurredAt.After(f.lastSeen) {
				f.lastSeen = sg.OccurredAt
			}
			for _, fl := range feelings {
				fd, ok := f.feelingDays[fl]
				if !ok {
					fd = newDays(span)
					f.feelingDays[fl] = fd
				}
				fd.add(d)
				f.feelingCount[fl]++
			}
		}
	}

	prior := map[string]Prior{}
	for _, p := range in.Patterns {
		prior[p.CategoryID] = p
	}
	reviewed := map[string]map[string]string{} // pattern -> tag -> status
	for _, c := range in.Correlations {
		if reviewed[c.PatternID] == nil {
			reviewed[c.PatternID] = map[string]string{}
		}
		reviewed[c.PatternID][c.TagID] = c.Status
	}

	var out []Pattern
	for catID, cat := range in.Categories {
		p, existed := prior[catID]
		if cat.Rejected || p.Status == Rejected {
			continue // rejected: left alone for good
		}
		f := facts[catID]
		qualifies := false
		if f != nil {
			for _, fd := range f.feelingDays {
				if fd.count() >= MinDays {
					qualifies = true
					break
				}
			}
		}
		if !qualifies && !existed {
			continue
		}
		pat := Pattern{ID: p.ID, CategoryID: catID, Name: cat.Name, Sentiment: kindSentiment(cat.Kind, p.Sentiment), Impact: "low"}
		if f != nil {
			pat.Feelings = topFeelings(f, in.Feelings)
			pat.Sentiment = sentiment(cat.Kind, f, pat.Feelings, in.Feelings)
			pat.Impact = impact(f.days.count(), written.count())
			pat.CapturesCount = len(f.captures)
			pat.LastSeen = f.lastSeen
			pat.Correlations = correlate(f.days, written, tagDays, tagInfo, reviewed[p.ID])
			pat.Flows = flows(catID, cat.Kind, f.segments)
		}
		switch {
		case f == nil:
			// Every capture it rested on is gone: it closes, accepted or not.
			pat.ClosedAt = closedAt(p.ClosedAt, in.Now, time.Time{})
		case p.Status == Accepted:
			// Accepted patterns are exempt from the clean-up: quiet or
			// counted below the bar, they stay open.
		case !qualifies:
			pat.ClosedAt = closedAt(p.ClosedAt, in.Now, time.Time{})
		case in.Now.Sub(pat.LastSeen) >= QuietAfter:
			pat.ClosedAt = closedAt(p.ClosedAt, pat.LastSeen.Add(QuietAfter), pat.LastSeen)
		}
		if pat.ClosedAt == nil && f != nil {
			pat.Urgent = urgent(f.days, today)
		}
		out = append(out, pat)
	}
	slices.SortFunc(out, func(a, b Pattern) int { return cmp.Compare(a.CategoryID, b.CategoryID) })
	link(out, in, facts, loc)
	return out
}

// closedAt keeps the moment a pattern closed, unless it was seen again
// after that (an entry written later about an earlier day), in which case
// it closes anew at at.
func closedAt(prev *time.Time, at, lastSeen time.Time) *time.Time {
	if prev != nil && !prev.Before(lastSeen) {
		return prev
	}
	return &at
}

func topFeelings(f *categoryFacts, vocab map[string]Feeling) []string {
	ids := make([]string, 0, len(f.feelingCount))
	for id := range f.feelingCount {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b string) int {
		if c := cmp.Compare(f.feelingCount[b], f.feelingCount[a]); c != 0 {
			return c
		}
		return cmp.Compare(vocab[a].Name, vocab[b].Name)
	})
	return ids[:min(len(ids), MaxFeelings)]
}

// kindSentiment is the sentiment of a pattern no capture shows: good
// behaviour positive, bad behaviour negative, and a trigger the one it had
// (negative when it had none).
func kindSentiment(kind, had string) string {
	switch {
	case kind == goodBehaviour:
		return "positive"
	case kind == badBehaviour:
		return "negative"
	case had == "positive":
		return had
	}
	return "negative"
}

// sentiment: good behaviour is positive, bad behaviour negative, and a
// trigger goes by the valence of the feelings it comes with, weighed by how
// often each comes (a tie is negative).
func sentiment(kind string, f *categoryFacts, feelings []string, vocab map[string]Feeling) string {
	if kind == goodBehaviour || kind == badBehaviour {
		return kindSentiment(kind, "")
	}
	sum := 0
	for _, id := range feelings {
		sum += vocab[id].Valence * f.feelingCount[id]
	}
	if sum > 0 {
		return "positive"
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

// categoryBefore reports whether a tag of the category comes earlier in the
// segment, so that a segment counts once per category.
func categoryBefore(tags []Tag, categoryID string) bool {
	for _, t := range tags {
		if t.CategoryID == categoryID {
			return true
		}
	}
	return false
}

// correlate compares, for each person, location and activity, the share of
// days with the tag on which the pattern showed up against the share of
// days without it, and keeps the top few per type that beat the baseline,
// plus those the user accepted; rejected ones never come back.
func correlate(patternDays, written days, tagDays map[string]days, info map[string]Tag, reviewed map[string]string) []Correlation {
	byType := map[string][]Correlation{}
	var accepted []Correlation
	for tagID, days := range tagDays {
		status := reviewed[tagID]
		if status == Rejected {
			continue
		}
		with, together := days.count(), days.common(patternDays)
		without := written.count() - with
		c := Correlation{TagID: tagID, Type: info[tagID].Type, Name: info[tagID].Name, Amount: together}
		if with >= MinSideDays && without >= MinSideDays && together >= 2 {
			rateWith := float64(together) / float64(with)
			rateWithout := float64(patternDays.count()-together) / float64(without)
			if rateWith > rateWithout {
				c.Lift = math.Inf(1)
				if rateWithout > 0 {
					c.Lift = rateWith / rateWithout
				}
				c.Impact = liftImpact(c.Lift)
				byType[c.Type] = append(byType[c.Type], c)
				continue
			}
		}
		if status == Accepted {
			c.Impact = "low"
			accepted = append(accepted, c)
		}
	}
	var out []Correlation
	for _, typ := range CorrelatedTypes {
		list := byType[typ]
		slices.SortFunc(list, func(a, b Correlation) int {
			if c := cmp.Compare(b.Lift, a.Lift); c != 0 {
				return c
			}
			if c := cmp.Compare(b.Amount, a.Amount); c != 0 {
				return c
			}
			return cmp.Compare(a.Name, b.Name)
		})
		for i, c := range list {
			if i < TopPerType || reviewed[c.TagID] == Accepted {
				out = append(out, c)
			}
		}
	}
	slices.SortFunc(accepted, func(a, b Correlation) int { return cmp.Compare(a.TagID, b.TagID) })
	return append(out, accepted...)
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

// flows links, in each of the pattern's segments, a trigger, a feeling and a
// behaviour that were all found in that segment; a segment missing any of
// the three gives none. With several candidates the choice is the one most
// associated with the pattern: the pattern's own tag when the pattern is a
// trigger or behaviour, else the one seen in the most of the pattern's
// segments (a trigger or behaviour by its category, then by itself; a
// feeling by its word), ties going to the name first in order.
func flows(catID, kind string, segments []*Segment) []Flow {
	// How many of the pattern's segments each category, tag and feeling
	// shows up in, under its id (ids are distinct across the three);
	// counted only when some segment has a choice to make.
	var count map[string]int
	counts := func() map[string]int {
		if count != nil {
			return count
		}
		count = map[string]int{}
		for _, sg := range segments {
			for j, t := range sg.Tags {
				switch t.Type {
				case trigger, goodBehaviour, badBehaviour:
					if t.CategoryID != "" && !categoryBefore(sg.Tags[:j], t.CategoryID) {
						count[t.CategoryID]++
					}
					count[t.ID]++
				case positiveFeeling, negativeFeeling:
					if !feelingBefore(sg.Tags[:j], t.FeelingID) {
						count[t.FeelingID]++
					}
				}
			}
		}
		return count
	}
	var out []Flow
	for _, sg := range segments {
		var trig, beh, feel choice
		for i := range sg.Tags {
			t := &sg.Tags[i]
			switch t.Type {
			case trigger:
				trig.consider(t, kind == trigger && t.CategoryID == catID, counts)
			case goodBehaviour, badBehaviour:
				beh.consider(t, kind != trigger && t.CategoryID == catID, counts)
			case positiveFeeling, negativeFeeling:
				feel.consider(t, false, counts)
			}
		}
		if trig.tag != nil && feel.tag != nil && beh.tag != nil {
			out = append(out, Flow{SegmentID: sg.ID, Trigger: trig.tag.Name, Feeling: feel.tag.Name, Behaviour: beh.tag.Name})
		}
	}
	return out
}

// choice is the best candidate so far for one part of a flow: the
// pattern's own tag first, then the one whose category (or feeling) shows
// up in the most of the pattern's segments, then the tag itself, then the
// name first in order.
type choice struct {
	tag *Tag
	own bool
}

func (c *choice) consider(t *Tag, own bool, counts func() map[string]int) {
	switch {
	case c.tag == nil || (own && !c.own):
		*c = choice{tag: t, own: own}
		return
	case own != c.own:
		return
	}
	count := counts()
	score := func(t *Tag) (group, one int) {
		switch {
		case t.FeelingID != "":
			return count[t.FeelingID], 0
		case t.CategoryID == "":
			return count[t.ID], count[t.ID]
		}
		return count[t.CategoryID], count[t.ID]
	}
	g, o := score(t)
	cg, co := score(c.tag)
	if cmp.Or(cmp.Compare(g, cg), cmp.Compare(o, co), cmp.Compare(c.tag.Name, t.Name)) > 0 {
		*c = choice{tag: t, own: own}
	}
}

// feelingBefore reports whether the feeling comes earlier in the segment.
func feelingBefore(tags []Tag, feelingID string) bool {
	for _, t := range tags {
		if t.FeelingID == feelingID {
			return true
		}
	}
	return false
}
