package detect

import (
	"cmp"
	"slices"

	"github.com/recur-journal/recur/store"
)

// A pattern's flows come from its situations, and from how many situations
// of the whole journal show the categories of two tags between which a
// situation's flow chose when nothing else told them apart (see
// association.closer). So while no segment that shows the pattern's
// category changed since a run, and each such pair of categories still
// compares as it did, its flows are those that run counted. A new entry
// touches a few categories of hundreds, and counting every pattern's flows
// again, tens of thousands each in ten years, was most of a run.

// tie is a choice a pattern's flows made by how many situations of the
// journal show category a against category b ("" for a tag without one):
// their counts compared as sign.
type tie struct {
	a, b string
	sign int
}

// keeping tells which patterns keep their flows in a run.
type keeping struct {
	x     *index
	in    *Input
	facts []categoryFacts
	ids   []string // category ids by number
}

func (x *index) keeping(in *Input, facts []categoryFacts) *keeping {
	k := &keeping{x: x, in: in, facts: facts, ids: make([]string, len(x.categories))}
	for id, c := range x.categories {
		k.ids[c] = id
	}
	return k
}

// kept reports whether the flows of category c's pattern are those the
// input kept, and returns the ties they were chosen by.
func (k *keeping) kept(c int) ([]tie, bool) {
	if k.in.touched == nil || k.in.touched[k.ids[c]] {
		return nil, false
	}
	ties, ok := k.in.kept[k.ids[c]]
	if !ok {
		return nil, false
	}
	for _, t := range ties {
		if cmp.Compare(k.everywhere(t.a), k.everywhere(t.b)) != t.sign {
			return nil, false
		}
	}
	return ties, true
}

// everywhere is how many situations of the journal show the category.
func (k *keeping) everywhere(id string) int {
	if c, ok := k.x.categories[id]; ok {
		return len(k.facts[c].segments)
	}
	return 0
}

// ties returns the ties an association recorded, by category id, sorted.
func (k *keeping) ties(recorded map[[2]int32]int) []tie {
	out := make([]tie, 0, len(recorded))
	id := func(c int32) string {
		if c < 0 {
			return ""
		}
		return k.ids[c]
	}
	for pair, sign := range recorded {
		out = append(out, tie{a: id(pair[0]), b: id(pair[1]), sign: sign})
	}
	slices.SortFunc(out, func(p, q tie) int { return cmp.Or(cmp.Compare(p.a, q.a), cmp.Compare(p.b, q.b)) })
	return out
}

// keepFrom has the input keep what the last run counted of each pattern,
// when facts tell what changed since it (the categories of those segments
// are touched): the flows, by category id, and the days and captures, by
// pattern id, when days are cut in the same timezone.
func (in *Input) keepFrom(last *seen, facts *store.Facts) {
	if last == nil || last.links == nil || facts.Since == nil {
		return
	}
	// A pattern without situations then has no ties, and none now: its
	// category is touched when one comes.
	in.kept = make(map[string][]tie, len(last.links))
	for id, s := range last.links {
		in.kept[id] = s.ties
	}
	if in.Location != nil && last.loc == in.Location.String() {
		in.days, in.captures, in.daysFirst = last.byPattern, last.captures, last.origin
	}
	in.touched = map[string]bool{}
	for _, sg := range facts.Since.Segments {
		for _, n := range sg.Tags {
			if c := facts.Tags[n].CategoryID; c != "" {
				in.touched[c] = true
			}
		}
	}
}

// keptDays returns the days the pattern of the category showed up on, and
// on how many captures, as the run the input kept them from counted them:
// when none of its situations changed since, and days are numbered from
// the same first one. Its situations alone make them.
func (in *Input) keptDays(x *index, categoryID, patternID string) (days, int, bool) {
	if in.touched == nil || in.touched[categoryID] || in.days == nil || patternID == "" || x.first != in.daysFirst {
		return nil, 0, false
	}
	kept, ok := in.days[patternID]
	if !ok {
		return nil, 0, false
	}
	own := newDays(x.span)
	copy(own, kept)
	return own, in.captures[patternID], true
}
