package pipeline

import (
	"testing"

	"github.com/recur-journal/recur/store"
)

func TestUntwin(t *testing.T) {
	t.Parallel()
	glad := store.NewTag{Type: store.TagPositiveFeeling, Name: "content"}
	sad := store.NewTag{Type: store.TagNegativeFeeling, Name: "sad"}
	for _, c := range []struct {
		name     string
		feeling  store.NewTag
		trigger  string
		behaving string
		kept     bool
	}{
		{"SameEventPleasant", glad, "cooking with Mika", "cooked dinner with Mika", false},
		{"SharedPersonOnly", glad, "a call from Dad", "visited Dad", true},
		{"LittleWordsOnly", glad, "a walk in the rain", "went to the gym", true},
		{"Unpleasant", sad, "choir rehearsal", "sang in the choir", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			tags := [][]store.NewTag{{c.feeling, {Type: store.TagTrigger, Name: c.trigger}, {Type: store.TagGoodBehaviour, Name: c.behaving},
				{Type: store.TagPerson, Name: "Mika"}, {Type: store.TagPerson, Name: "Dad"}}}
			untwin(tags)
			kept := false
			for _, tg := range tags[0] {
				kept = kept || tg.Type == store.TagTrigger
			}
			if kept != c.kept || len(tags[0]) < 4 {
				t.Errorf("trigger %q beside %q kept: %t, want %t (tags %+v)", c.trigger, c.behaving, kept, c.kept, tags[0])
			}
		})
	}
}
