package detect

import (
	"slices"

	"github.com/recur-journal/recur/store"
)

// summedUsers bounds the users whose patterns' links a Detector keeps from
// its last run: the flows of ten years are some 100,000, a few MB.
const summedUsers = 4

// summed is a pattern's correlations and flows as they were saved, with
// their sum (see linksHash). A later run whose pattern gives the same ones
// saves these, summed already: a new entry changes the links of a few
// patterns, and summing every flow of every pattern again was near a
// third of a run in a ten-year journal.
type summed struct {
	saved store.DetectedPattern // Correlations, Flows and LinksHash
	ties  []tie                 // what the flows were chosen by (Pattern.ties)
}

// saveLinks sets dp's correlations, flows and their sum from p's: those of
// the last run when they are the same, else made and summed now, with buf
// (returned for the next pattern). It returns what the next run compares
// with.
func saveLinks(dp *store.DetectedPattern, p Pattern, last *summed, buf []byte) (*summed, []byte) {
	if last != nil && (p.flowsKept || slices.EqualFunc(last.saved.Flows, p.Flows, savedFlow)) &&
		slices.EqualFunc(last.saved.Correlations, p.Correlations, saved) {
		dp.Correlations, dp.Flows, dp.LinksHash = last.saved.Correlations, last.saved.Flows, last.saved.LinksHash
		if !slices.Equal(last.ties, p.ties) {
			return &summed{saved: last.saved, ties: p.ties}, buf
		}
		return last, buf
	}
	if p.flowsKept { // kept from last, whose correlations differ
		p.Flows = make([]Flow, len(last.saved.Flows))
		for i, f := range last.saved.Flows {
			p.Flows[i] = Flow{SegmentID: f.SegmentID, Trigger: f.Trigger, Feeling: f.Feeling, Behaviour: f.Behaviour}
		}
	}
	if last != nil {
		dp.FlowsBefore, dp.HashBefore = last.saved.Flows, last.saved.LinksHash
	}
	if len(p.Correlations) > 0 {
		dp.Correlations = make([]store.DetectedCorrelation, len(p.Correlations))
		for j, c := range p.Correlations {
			dp.Correlations[j] = store.DetectedCorrelation{TagID: c.TagID, Amount: c.Amount, Impact: c.Impact}
		}
	}
	if len(p.Flows) > 0 {
		dp.Flows = make([]store.Flow, len(p.Flows))
		for j, f := range p.Flows {
			dp.Flows[j] = store.Flow{SegmentID: f.SegmentID, Trigger: f.Trigger, Feeling: f.Feeling, Behaviour: f.Behaviour}
		}
	}
	dp.LinksHash, buf = linksHash(p, buf[:0])
	return &summed{saved: store.DetectedPattern{Correlations: dp.Correlations, Flows: dp.Flows, LinksHash: dp.LinksHash}, ties: p.ties}, buf
}

// savedFlow reports whether flow f is saved as s.
func savedFlow(s store.Flow, f Flow) bool {
	return s.SegmentID == f.SegmentID && s.Trigger == f.Trigger && s.Feeling == f.Feeling && s.Behaviour == f.Behaviour
}

// saved reports whether correlation c is saved as s: the same tag, days
// together and impact (its lift, which moves with every day written, is
// not saved).
func saved(s store.DetectedCorrelation, c Correlation) bool {
	return s.TagID == c.TagID && s.Amount == c.Amount && s.Impact == c.Impact
}
