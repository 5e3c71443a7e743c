package pipeline

import (
	"strings"
	"testing"
)

// The prompts carry the rules that only the model can follow; these
// guard each rule's wording against being lost in an edit.
func TestPromptRules(t *testing.T) {
	t.Parallel()
	extract := extractSystem(vocabulary(), extractSchema(vocabulary()))
	for _, c := range []struct {
		prompt, name, want string
	}{
		{extract, "extract: one person, one name", "One person, one name: when the writer already has a name for this person"},
		{extract, "extract: kinship words as written", `Family words stay as written ("abuela").`},
		{extract, "extract: a trigger is what set the feelings off", "triggers: what set the feelings off"},
		{extract, "extract: a cue nearby or a plan is no trigger", "not what\n  merely happened nearby, nor a plan told with no feeling."},
		{extract, "extract: a chosen, enjoyed act is told once", "An act the writer chose and enjoyed is a good behaviour only, never also a trigger."},
		{translateSystem, "translate: names and kinship words kept", `"la abuela" becomes "abuela"`},
	} {
		if !strings.Contains(c.prompt, c.want) {
			t.Errorf("%s: the prompt lacks %q", c.name, c.want)
		}
	}
	// Every step that finds situations says what one is.
	read := readSystem(vocabulary(), readSchema(vocabulary()))
	for name, p := range map[string]string{"segment": segmentSystem, "segment_extract": read, "translate": translateSystem} {
		for _, want := range []string{"the lead-in that sets\nthe scene, what set it off, how the writer felt and reacted, what they did about it, and their plans about it",
			"an entry where\nnothing happened has no situations."} {
			if !strings.Contains(p, want) {
				t.Errorf("%s: the prompt lacks %q", name, want)
			}
		}
	}
	for _, c := range []struct {
		prompt, name, want string
	}{
		{segmentSystem, "segment: zero situations is an answer", `With no situations, answer {"situations":[]}.`},
		{read, "segment_extract: zero situations is an answer", `with no situations, answer {"situations":[]}`},
		{read, "segment_extract: the notes of extract", "An act the writer chose and enjoyed is a good behaviour only, never also a trigger."},
		{translateSystem, "translate: the parts are the whole translation", "together they are the whole translation"},
	} {
		if !strings.Contains(c.prompt, c.want) {
			t.Errorf("%s: the prompt lacks %q", c.name, c.want)
		}
	}
}
