package detect

import (
	"testing"

	"github.com/recur-journal/recur/store"
)

// TestMixedFeelingTipsNoSentiment: a mixed feeling (bittersweet) counts as
// a feeling of the pattern but weighs neither way, so old photos that
// leave the writer bittersweet and grateful are a positive trigger, not a
// tie that reads as negative.
func TestMixedFeelingTipsNoSentiment(t *testing.T) {
	t.Parallel()
	h := newHistory("2026-11-10T12:00:00Z", "UTC")
	h.in.Feelings["bittersweet"] = Feeling{ID: "bittersweet", Name: "bittersweet", Valence: 0}
	h.in.Feelings["grateful"] = Feeling{ID: "grateful", Name: "grateful", Valence: 1}
	h.in.Categories["photos"] = Category{ID: "photos", Kind: store.TagTrigger, Name: "old photos"}
	for _, d := range []string{"02", "04", "06"} {
		h.add("2026-11-" + d + "T19:00:00Z")
		sg := &h.in.Segments[len(h.in.Segments)-1]
		sg.Tags = []Tag{{ID: "t-photos", Type: store.TagTrigger, Name: "old photos", CategoryID: "photos"},
			{ID: "f-bittersweet", Type: store.TagMixedFeeling, Name: "bittersweet", FeelingID: "bittersweet"},
			{ID: "f-grateful", Type: store.TagPositiveFeeling, Name: "grateful", FeelingID: "grateful"}}
	}
	p := find(Run(h.in), "photos")
	if p == nil {
		t.Fatal("no pattern of old photos")
	}
	if p.Sentiment != "positive" {
		t.Errorf("sentiment = %s, want positive: bittersweet is mixed, grateful pleasant", p.Sentiment)
	}
	if len(p.Feelings) != 2 || p.Feelings[0] != "bittersweet" {
		t.Errorf("feelings = %v, want bittersweet then grateful, as named", p.Feelings)
	}
}
