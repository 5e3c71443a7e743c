package pipeline_test

import "encoding/json"

// extracting reports whether a step reads the tags of an entry's
// situations: extract, or segment_extract for a short English entry.
func extracting(step string) bool { return step == "extract" || step == "segment_extract" }

// extractReply is an answer of one situation with the given lists, in the
// shape the step asks for: the situation's number for extract, its first
// and last sentence (the first alone) for segment_extract.
func extractReply(step string, lists map[string][]string) string {
	sit := map[string]any{}
	for _, key := range []string{"feelings", "triggers", "good_behaviours", "bad_behaviours", "persons", "locations", "activities"} {
		sit[key] = append([]string{}, lists[key]...)
	}
	if step == "extract" {
		sit["situation"] = 1
	} else {
		sit["first"], sit["last"] = 1, 1
	}
	b, _ := json.Marshal(map[string]any{"situations": []any{sit}})
	return string(b)
}
