package detect

import (
	"cmp"
	"math"
	"slices"
	"time"

	"github.com/recur-journal/recur/store"
)

// The counting numbers every id it meets once (tags, categories, feelings,
// captures) and then works on slices indexed by those numbers: ten years of
// situations are over a hundred thousand tags, and a map lookup by string
// for each, in every step, was most of a run.

// Tag kinds as the counting sees them.
const (
	kindOther uint8 = iota
	kindTrigger
	kindBehaviour
	kindFeeling
)

// tagRef is what the counting needs of a tag: its kind, and its category,
// feeling and place among the correlated tags as numbers (-1 for none).
type tagRef struct {
	kind       uint8
	category   int32
	feeling    int32
	correlated int32
}

// index holds the input's ids as numbers, and each segment's day, capture
// and tags in those terms. A tag id names one tag: its first occurrence
// gives the fields.
type index struct {
	today   int  // days are numbered from the journal's first day
	first   int  // that first day, as day() numbers it
	span    int  // how many days a set must hold
	written days // the days the user wrote on

	segDays    []int
	segIDs     []string // apart from the segments: flows read them by the thousand
	segCapture []int32
	segTags    []int32 // every segment's tags, one after the other
	segStart   []int32 // segment i's tags are segTags[segStart[i]:segStart[i+1]]
	captures   int

	tagIDs      map[string]int32
	tags        []tagRef
	names       []string // by tag number
	categories  map[string]int32
	feelings    map[string]int32
	feelingIDs  []string
	correlated  []Tag // by number, as first seen
	correlatedD []days
}

// categoryFacts gathers what one category's segments say.
type categoryFacts struct {
	segments     []int32 // the segments that show it, by index in the input
	lastSegment  int     // 1 + the last segment counted, so a segment counts once
	days         days    // nil while the category has no segment
	feelingDays  []days  // by feeling number; nil for a feeling not seen with it
	feelingCount []int
	// feelingPlace sums, by feeling, its place among the feelings of each
	// segment it came in (0 when named first): ties go by it.
	feelingPlace []int
	captures     days // a set of capture numbers
	lastSeen     time.Time
}

func newIndex(in Input) *index {
	loc := in.Location
	if loc == nil {
		loc = time.UTC
	}
	x := &index{
		segDays:    make([]int, in.segments()),
		segIDs:     make([]string, in.segments()),
		segCapture: make([]int32, in.segments()),
		segStart:   make([]int32, in.segments()+1),
		tagIDs:     map[string]int32{},
		categories: map[string]int32{},
		feelings:   map[string]int32{},
	}
	// The segments of one capture share its time: the day is worked out
	// once for a run of equal times.
	var lastAt time.Time
	lastDay := 0
	dayOf := func(t time.Time) int {
		if t.Equal(lastAt) && !lastAt.IsZero() {
			return lastDay
		}
		lastAt, lastDay = t, day(t, loc)
		return lastDay
	}
	first := day(in.Now, loc)
	capDays := make([]int, len(in.Captures))
	for i, c := range in.Captures {
		capDays[i] = dayOf(c.OccurredAt)
		first = min(first, capDays[i])
	}
	captures := captureNumbers{list: in.Captures}
	n := 0
	for i := range in.Stored {
		n += len(in.Stored[i].Tags)
	}
	for i := range in.Segments {
		n += len(in.Segments[i].Tags) + len(in.Segments[i].TagNumbers)
	}
	x.segTags = make([]int32, 0, n)
	// numbered[j] is the counting's number of in.Tags[j], -1 until seen.
	numbered := make([]int32, len(in.Tags))
	for j := range numbered {
		numbered[j] = -1
	}
	lastCapture, lastCaptureN := "", int32(-1)
	for i := range in.segments() {
		sg := in.segment(i)
		x.segDays[i] = dayOf(sg.OccurredAt)
		x.segIDs[i] = sg.ID
		first = min(first, x.segDays[i])
		if sg.CaptureID != lastCapture || lastCaptureN < 0 {
			lastCapture, lastCaptureN = sg.CaptureID, captures.of(sg.CaptureID)
		}
		x.segCapture[i] = lastCaptureN
		for j := range sg.Tags {
			t, ok := x.tagIDs[sg.Tags[j].ID]
			if !ok {
				t = x.addTag(&sg.Tags[j])
			}
			x.segTags = append(x.segTags, t)
		}
		for _, j := range sg.TagNumbers {
			if numbered[j] < 0 {
				t, ok := x.tagIDs[in.Tags[j].ID]
				if !ok {
					t = x.addTag(&in.Tags[j])
				}
				numbered[j] = t
			}
			x.segTags = append(x.segTags, numbered[j])
		}
		x.segStart[i+1] = int32(len(x.segTags))
	}
	x.captures = captures.count()

	x.today = day(in.Now, loc) - first
	x.first = first
	x.span = x.today + 1
	for i := range capDays {
		capDays[i] -= first
		x.span = max(x.span, capDays[i]+1)
	}
	for i := range x.segDays {
		x.segDays[i] -= first
		x.span = max(x.span, x.segDays[i]+1)
	}
	x.written = newDays(x.span)
	for _, d := range capDays {
		x.written.add(d)
	}
	x.correlatedD = make([]days, len(x.correlated))
	for i := range x.correlatedD {
		x.correlatedD[i] = newDays(x.span)
	}
	return x
}

// addTag numbers a tag seen for the first time.
func (x *index) addTag(t *Tag) int32 {
	r := tagRef{category: -1, feeling: -1, correlated: -1}
	switch t.Type {
	case store.TagTrigger:
		r.kind = kindTrigger
	case store.TagGoodBehaviour, store.TagBadBehaviour:
		r.kind = kindBehaviour
	case store.TagPositiveFeeling, store.TagNegativeFeeling, store.TagMixedFeeling:
		r.kind = kindFeeling
	case store.TagPerson, store.TagLocation, store.TagActivity:
		r.correlated = int32(len(x.correlated))
		x.correlated = append(x.correlated, *t)
	}
	if t.CategoryID != "" {
		r.category = number(x.categories, t.CategoryID)
	}
	if t.FeelingID != "" {
		var ok bool
		if r.feeling, ok = x.feelings[t.FeelingID]; !ok {
			r.feeling = number(x.feelings, t.FeelingID)
			x.feelingIDs = append(x.feelingIDs, t.FeelingID)
		}
	}
	x.tagIDs[t.ID] = int32(len(x.tags))
	x.tags = append(x.tags, r)
	x.names = append(x.names, t.Name)
	return int32(len(x.tags) - 1)
}

// number returns id's number in m, giving it the next one when it has none.
func number(m map[string]int32, id string) int32 {
	n, ok := m[id]
	if !ok {
		n = int32(len(m))
		m[id] = n
	}
	return n
}

// count goes through the segments once and gathers, for each category, its
// segments, days, captures and feelings, and the days of each person,
// location and activity.
func (x *index) count(in *Input) []categoryFacts {
	facts := make([]categoryFacts, len(x.categories))
	var feelings []int32
	for i := range x.segDays {
		d := x.segDays[i]
		tags := x.segTags[x.segStart[i]:x.segStart[i+1]]
		feelings = feelings[:0]
		for _, t := range tags {
			r := x.tags[t]
			if r.feeling >= 0 {
				feelings = append(feelings, r.feeling)
			}
			if r.correlated >= 0 {
				x.correlatedD[r.correlated].add(d)
			}
		}
		for _, t := range tags {
			c := x.tags[t].category
			if c < 0 || facts[c].lastSegment == i+1 {
				continue
			}
			f := &facts[c]
			f.lastSegment = i + 1
			if f.days == nil {
				f.days = newDays(x.span)
				f.captures = newDays(x.captures)
				f.feelingDays = make([]days, len(x.feelingIDs))
				f.feelingCount = make([]int, len(x.feelingIDs))
				f.feelingPlace = make([]int, len(x.feelingIDs))
			}
			f.segments = append(f.segments, int32(i))
			f.days.add(d)
			f.captures.add(int(x.segCapture[i]))
			if at := in.segmentTime(i); at.After(f.lastSeen) {
				f.lastSeen = at
			}
			for place, fl := range feelings {
				if f.feelingDays[fl] == nil {
					f.feelingDays[fl] = newDays(x.span)
				}
				f.feelingDays[fl].add(d)
				f.feelingCount[fl]++
				f.feelingPlace[fl] += place
			}
		}
	}
	return facts
}

// topFeelings are the numbers of the feelings seen most often with the
// category, most frequent first; of as frequent ones, the one the model
// named earlier among a situation's feelings (the lower sum of places),
// then by name.
func (x *index) topFeelings(f *categoryFacts, vocab map[string]Feeling) []int32 {
	var ids []int32
	for fl, n := range f.feelingCount {
		if n > 0 {
			ids = append(ids, int32(fl))
		}
	}
	slices.SortFunc(ids, func(a, b int32) int {
		if c := cmp.Compare(f.feelingCount[b], f.feelingCount[a]); c != 0 {
			return c
		}
		if c := cmp.Compare(f.feelingPlace[a], f.feelingPlace[b]); c != 0 {
			return c
		}
		if c := cmp.Compare(vocab[x.feelingIDs[a]].Name, vocab[x.feelingIDs[b]].Name); c != 0 {
			return c
		}
		return cmp.Compare(x.feelingIDs[a], x.feelingIDs[b])
	})
	return ids[:min(len(ids), MaxFeelings)]
}

// patternDays are the days, and the number of captures, on which the
// category came with one of the pattern's feelings (top) in a segment: a
// plain mention of the category, with none of them, is not the pattern.
func (x *index) patternDays(f *categoryFacts, top []int32) (days, int) {
	own, captures := newDays(x.span), newDays(x.captures)
	for _, si := range f.segments {
		for _, t := range x.segmentTags(si) {
			if fl := x.tags[t].feeling; fl >= 0 && slices.Contains(top, fl) {
				own.add(x.segDays[si])
				captures.add(int(x.segCapture[si]))
				break
			}
		}
	}
	return own, captures.count()
}

// sentiment: good behaviour is positive, bad behaviour negative, and a
// trigger goes by the valence of the feelings it comes with, weighed by how
// often each comes (a tie is negative).
func sentiment(kind store.TagType, f *categoryFacts, top []int32, ids []string, vocab map[string]Feeling) string {
	if kind == store.TagGoodBehaviour || kind == store.TagBadBehaviour {
		return kindSentiment(kind, "")
	}
	sum := 0
	for i, fl := range top {
		sum += vocab[ids[i]].Valence * f.feelingCount[fl]
	}
	if sum > 0 {
		return "positive"
	}
	return "negative"
}

// correlate compares, for each person, location and activity, the share of
// days with the tag on which the pattern showed up against the share of
// days without it, and keeps the top few per type that beat the baseline,
// plus those the user accepted; rejected ones never come back.
func (x *index) correlate(patternDays days, written int, reviewed map[string]store.PatternStatus) []Correlation {
	var byType [3][]Correlation // in the order of CorrelatedTypes
	var accepted []Correlation
	seen := patternDays.count()
	for i, tag := range x.correlated {
		status := reviewed[tag.ID]
		if status == store.PatternRejected {
			continue
		}
		with, together := x.correlatedD[i].count(), x.correlatedD[i].common(patternDays)
		without := written - with
		c := Correlation{TagID: tag.ID, Type: tag.Type, Name: tag.Name, Amount: together}
		if with >= MinSideDays && without >= MinSideDays && together >= 2 {
			rateWith := float64(together) / float64(with)
			rateWithout := float64(seen-together) / float64(without)
			if rateWith > rateWithout {
				c.Lift = math.Inf(1)
				if rateWithout > 0 {
					c.Lift = rateWith / rateWithout
				}
				c.Impact = liftImpact(c.Lift)
				k := slices.Index(CorrelatedTypes, c.Type)
				byType[k] = append(byType[k], c)
				continue
			}
		}
		if status == store.PatternAccepted {
			c.Impact = "low"
			accepted = append(accepted, c)
		}
	}
	var out []Correlation
	for _, list := range byType {
		slices.SortFunc(list, func(a, b Correlation) int {
			if c := cmp.Compare(b.Lift, a.Lift); c != 0 {
				return c
			}
			if c := cmp.Compare(b.Amount, a.Amount); c != 0 {
				return c
			}
			if c := cmp.Compare(a.Name, b.Name); c != 0 {
				return c
			}
			return cmp.Compare(a.TagID, b.TagID)
		})
		for i, c := range list {
			if i < TopPerType || reviewed[c.TagID] == store.PatternAccepted {
				out = append(out, c)
			}
		}
	}
	slices.SortFunc(accepted, func(a, b Correlation) int { return cmp.Compare(a.TagID, b.TagID) })
	return append(out, accepted...)
}

// flowPlan is what the flows of one pattern are chosen by.
type flowPlan struct {
	pattern int            // index in Run's result
	trigger bool           // the pattern is a trigger's
	facts   *categoryFacts // its segments
}

// flows links, in each of a pattern's segments, a trigger, a feeling and a
// behaviour that were all found in that segment; a segment missing any of
// the three gives none. With several candidates the choice is the one most
// associated with the pattern (see association.closer), the pattern's own
// tag first when the pattern is a trigger or behaviour. Plans and facts are
// by category number, nil plans for none. A pattern whose flows the input
// kept, and can keep still (see keeping), is given none and marked kept.
func (x *index) flows(plans []*flowPlan, out []Pattern, facts []categoryFacts, in *Input) {
	a := x.newAssociation(facts)
	k := x.keeping(in, facts)
	for c, plan := range plans {
		if plan == nil {
			continue
		}
		p := &out[plan.pattern]
		if p.ties, p.flowsKept = k.kept(c); p.flowsKept {
			continue
		}
		a.start(plan.facts)
		var list []Flow
		for _, si := range plan.facts.segments {
			if f, ok := x.flow(x.segmentTags(si), int32(c), plan.trigger, a); ok {
				if list == nil {
					list = make([]Flow, 0, len(plan.facts.segments))
				}
				f.SegmentID = x.segIDs[si]
				list = append(list, f)
			}
		}
		p.Flows, p.ties = list, k.ties(a.ties)
		a.clear()
	}
}

// segmentTags are the tags of segment si, by number.
func (x *index) segmentTags(si int32) []int32 {
	return x.segTags[x.segStart[si]:x.segStart[si+1]]
}

// categoryBefore reports whether a tag of the category comes earlier in the
// segment, so that a segment counts once per category.
func (x *index) categoryBefore(tags []int32, category int32) bool {
	for _, t := range tags {
		if x.tags[t].category == category {
			return true
		}
	}
	return false
}

// flow chooses a segment's flow for the pattern of the category.
func (x *index) flow(tags []int32, category int32, trigger bool, a *association) (Flow, bool) {
	var trig, beh, feel candidate
	for _, t := range tags {
		r := x.tags[t]
		switch r.kind {
		case kindTrigger:
			trig.consider(t, trigger && r.category == category, a)
		case kindBehaviour:
			beh.consider(t, !trigger && r.category == category, a)
		case kindFeeling:
			feel.consider(t, false, a)
		}
	}
	if !trig.set || !beh.set || !feel.set {
		return Flow{}, false
	}
	return Flow{Trigger: x.names[trig.tag], Feeling: x.names[feel.tag], Behaviour: x.names[beh.tag]}, true
}

// candidate is the best tag so far for one part of a flow: the pattern's
// own tag first, then the one association.closer prefers; of two it holds
// equal, the one named first in the segment.
type candidate struct {
	tag      int32
	set, own bool
}

func (c *candidate) consider(t int32, own bool, a *association) {
	switch {
	case !c.set || (own && !c.own):
		*c = candidate{tag: t, set: true, own: own}
		return
	case own != c.own || t == c.tag:
		return
	}
	if a.closer(t, c.tag) {
		*c = candidate{tag: t, set: true, own: own}
	}
}

// association counts, for one pattern at a time, how many of its segments
// each category, tag and feeling shows up in, by number. A pattern's counts
// are taken only once a segment has a choice to make, and cleared before
// the next pattern.
type association struct {
	x       *index
	facts   []categoryFacts // every category's, by number
	pattern *categoryFacts  // the pattern's
	counted bool

	category, tag, feeling []int32
	// The segment that last counted a category or feeling, so that a
	// segment counts once for each; segments are numbered as visited.
	categoryVisit, feelingVisit []int32
	visit                       int32
	// ties are the pairs of categories, by number, whose everywhere
	// counts decided a choice for the pattern, with how they compared.
	ties map[[2]int32]int
}

func (x *index) newAssociation(facts []categoryFacts) *association {
	return &association{
		x:             x,
		facts:         facts,
		category:      make([]int32, len(x.categories)),
		tag:           make([]int32, len(x.tags)),
		feeling:       make([]int32, len(x.feelingIDs)),
		categoryVisit: make([]int32, len(x.categories)),
		feelingVisit:  make([]int32, len(x.feelingIDs)),
		ties:          map[[2]int32]int{},
	}
}

// start makes the association the one of the pattern with these facts.
func (a *association) start(f *categoryFacts) {
	a.pattern, a.counted = f, false
	clear(a.ties)
}

// tie records that the choice between tags t and u goes by how many
// situations of the journal show their categories.
func (a *association) tie(t, u int32) {
	pair := [2]int32{a.x.tags[u].category, a.x.tags[t].category}
	if _, ok := a.ties[pair]; !ok {
		a.ties[pair] = cmp.Compare(a.everywhere(u), a.everywhere(t))
	}
}

// closer reports whether tag t goes with the pattern more than tag u (of
// the same part of a flow): its category, or its feeling, comes in more of
// the pattern's segments; of as many, a trigger or behaviour whose category
// comes in fewer segments besides (bound to this pattern rather than seen
// everywhere), then the tag itself in more of them; a feeling the model
// named earlier among the feelings of the pattern's segments.
func (a *association) closer(t, u int32) bool {
	if !a.counted {
		a.count()
	}
	rt, ru := a.x.tags[t], a.x.tags[u]
	if rt.feeling >= 0 && ru.feeling >= 0 {
		return cmp.Or(cmp.Compare(a.feeling[rt.feeling], a.feeling[ru.feeling]),
			cmp.Compare(a.pattern.feelingPlace[ru.feeling], a.pattern.feelingPlace[rt.feeling])) > 0
	}
	gt, gu := a.group(t), a.group(u)
	if gt == gu {
		a.tie(t, u)
	}
	return cmp.Or(cmp.Compare(gt, gu), cmp.Compare(a.everywhere(u), a.everywhere(t)), cmp.Compare(a.tag[t], a.tag[u])) > 0
}

// group is how many of the pattern's segments show the tag's category, or
// the tag itself when it has none.
func (a *association) group(t int32) int32 {
	if c := a.x.tags[t].category; c >= 0 {
		return a.category[c]
	}
	return a.tag[t]
}

// everywhere is how many segments of the whole journal show the tag's
// category; 0 for a tag without one.
func (a *association) everywhere(t int32) int {
	if c := a.x.tags[t].category; c >= 0 {
		return len(a.facts[c].segments)
	}
	return 0
}

func (a *association) count() {
	a.counted = true
	for _, si := range a.pattern.segments {
		a.visit++
		for _, t := range a.x.segmentTags(si) {
			r := a.x.tags[t]
			switch r.kind {
			case kindTrigger, kindBehaviour:
				if r.category >= 0 && a.categoryVisit[r.category] != a.visit {
					a.categoryVisit[r.category] = a.visit
					a.category[r.category]++
				}
				a.tag[t]++
			case kindFeeling:
				if r.feeling >= 0 && a.feelingVisit[r.feeling] != a.visit {
					a.feelingVisit[r.feeling] = a.visit
					a.feeling[r.feeling]++
				}
			}
		}
	}
}

// clear sets back to zero what the pattern's segments counted.
func (a *association) clear() {
	if !a.counted {
		return
	}
	for _, si := range a.pattern.segments {
		for _, t := range a.x.segmentTags(si) {
			r := a.x.tags[t]
			a.tag[t] = 0
			if r.category >= 0 {
				a.category[r.category] = 0
			}
			if r.feeling >= 0 {
				a.feeling[r.feeling] = 0
			}
		}
	}
}
