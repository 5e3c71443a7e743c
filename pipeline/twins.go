package pipeline

import (
	"strings"

	"github.com/recur-journal/recur/store"
)

// twinWords are words that name no event: a trigger and a good behaviour
// sharing only these tell different things.
var twinWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an the my our your his her their its this that some
		with without in at on to of for from by about after before into over and or
		went go gone got get had have did do done made make took take was were
		me us them him it i we they`) {
		twinWords[stem(w)] = true
	}
}

// untwin drops, from each situation with a pleasant feeling, a trigger that
// tells the same event as one of its good behaviours ("choir rehearsal" and
// "sang in the choir"): an act the writer chose and enjoyed is a good
// behaviour only, so it makes one pattern, not a trigger pattern and a
// behaviour pattern of the same days with a flow from the one to the
// other. Two names tell the same event when they share a word (in any
// form) that is not a little word nor part of a person or place the
// situation names: "cooking with Mika" and "cooked dinner with Mika" do,
// "a call from Dad" and "visited Dad" do not.
func untwin(tags [][]store.NewTag) {
	for i, seg := range tags {
		pleasant := false
		others := map[string]bool{} // word forms of the persons and places
		var behaviours [][]string
		for _, t := range seg {
			switch t.Type {
			case store.TagPositiveFeeling:
				pleasant = true
			case store.TagPerson, store.TagLocation:
				for _, w := range wordForms(t.Name) {
					others[w] = true
				}
			}
		}
		if !pleasant {
			continue
		}
		for _, t := range seg {
			if t.Type == store.TagGoodBehaviour {
				behaviours = append(behaviours, wordForms(t.Name))
			}
		}
		kept := seg[:0]
		for _, t := range seg {
			if t.Type != store.TagTrigger || !tellsAny(wordForms(t.Name), behaviours, others) {
				kept = append(kept, t)
			}
		}
		tags[i] = kept
	}
}

// tellsAny reports whether the words share an event word with any of the
// lists: one not in twinWords nor in others.
func tellsAny(words []string, lists [][]string, others map[string]bool) bool {
	for _, w := range words {
		if twinWords[w] || others[w] || len(w) < 3 {
			continue
		}
		for _, l := range lists {
			for _, v := range l {
				if v == w {
					return true
				}
			}
		}
	}
	return false
}
