package detect

import (
	"testing"

	"github.com/recur-journal/recur/store"
)

// TestFlowsKeepWhatGoesWithThePattern: when a situation of the pattern
// names two behaviours (or two feelings) that each come in all of its
// situations, the flow keeps the one most bound to the pattern, not the
// one first in the alphabet: the behaviour seen only with it over one seen
// everywhere, and the feeling the model named first.
func TestFlowsKeepWhatGoesWithThePattern(t *testing.T) {
	t.Parallel()
	h := newHistory("2026-11-10T12:00:00Z", "UTC")
	h.in.Feelings["worried"] = Feeling{ID: "worried", Name: "worried", Valence: -1}
	h.in.Categories["late"] = Category{ID: "late", Kind: store.TagBadBehaviour, Name: "staying late"}
	h.in.Categories["scroll"] = Category{ID: "scroll", Kind: store.TagBadBehaviour, Name: "scrolling"}
	for _, d := range []string{"02", "04", "06"} {
		h.add("2026-11-"+d+"T19:00:00Z", "c:boss", "f:worried", "f:anxious", "c:late", "c:scroll")
	}
	// Staying late comes on many other days, with no criticism.
	for _, d := range []string{"01", "03", "05", "07"} {
		h.add("2026-11-"+d+"T19:00:00Z", "c:late", "f:sad")
	}
	p := find(Run(h.in), "boss")
	if p == nil || len(p.Flows) != 3 {
		t.Fatalf("criticism = %+v, want a pattern with three flows", p)
	}
	for _, f := range p.Flows {
		if f.Behaviour != "scroll" {
			t.Errorf("flow %s behaviour = %q, want scroll: seen only with criticism, where staying late comes on most days", f.SegmentID, f.Behaviour)
		}
		if f.Feeling != "worried" {
			t.Errorf("flow %s feeling = %q, want worried, named first each time", f.SegmentID, f.Feeling)
		}
	}
}
