package detect

import (
	"cmp"
	"slices"

	"github.com/recur-journal/recur/store"
)

// Loops: a trigger and the behaviours that follow it are told in the same
// situations, so they come out as several patterns with the same days and
// feelings. Patterns that rest on mostly the same situations are linked, and
// a connected group of them is one loop.
const (
	// Two patterns are related when they share situations on at least
	// MinDays different days and the situations they share are at least
	// LinkSharePercent of the situations of the one with fewer.
	LinkSharePercent = 60
)

// Link ties a pattern to another that rests on mostly the same situations.
type Link struct {
	CategoryID string // the other pattern's category
	SharedDays int    // days with a situation both show up in
}

// link fills in Related and Lead of the patterns: each pattern's links to
// the patterns it shares most of its situations with, and, for every
// pattern in a loop, the category of the loop's lead: its trigger (the one
// seen on most days when there are several), or else its pattern seen on
// most days; ties go by name, then category id. Facts are by category
// number, as count gives them.
func (x *index) link(out []Pattern, cats map[string]Category, facts []categoryFacts) {
	// Each pattern's facts, nil for one no situation shows, and the pattern
	// of each category number, -1 for none.
	of := make([]*categoryFacts, len(out))
	pattern := make([]int32, len(x.categories))
	for c := range pattern {
		pattern[c] = -1
	}
	for i, p := range out {
		if c, ok := x.categories[p.CategoryID]; ok && facts[c].days != nil {
			of[i], pattern[c] = &facts[c], int32(i)
		}
	}

	// Union-find over the linked pairs makes the loops.
	parent := make([]int, len(out))
	for i := range parent {
		parent[i] = i
	}
	var root func(int) int
	root = func(i int) int {
		if parent[i] != i {
			parent[i] = root(parent[i])
		}
		return parent[i]
	}

	// For each pattern, count the situations it shares with each pattern
	// after it, going through its own situations only; the days only for the
	// pairs that share enough of them, which are few.
	shared := make([]int32, len(out))
	visited := make([]int32, len(out)) // the situation that last counted a pattern
	visit := int32(0)
	var others []int32
	for i, fi := range of {
		if fi == nil {
			continue
		}
		others = others[:0]
		for _, si := range fi.segments {
			visit++
			for _, t := range x.segmentTags(si) {
				c := x.tags[t].category
				if c < 0 {
					continue
				}
				j := pattern[c]
				if j <= int32(i) || visited[j] == visit {
					continue
				}
				visited[j] = visit
				if shared[j] == 0 {
					others = append(others, j)
				}
				shared[j]++
			}
		}
		for _, j := range others {
			n, fj := int(shared[j]), of[j]
			shared[j] = 0
			if n < MinDays || n*100 < LinkSharePercent*min(len(fi.segments), len(fj.segments)) {
				continue
			}
			var days int
			if len(fi.segments) <= len(fj.segments) {
				days = x.sharedDays(fi, x.categories[out[j].CategoryID])
			} else {
				days = x.sharedDays(fj, x.categories[out[i].CategoryID])
			}
			if days < MinDays {
				continue
			}
			out[i].Related = append(out[i].Related, Link{CategoryID: out[j].CategoryID, SharedDays: days})
			out[j].Related = append(out[j].Related, Link{CategoryID: out[i].CategoryID, SharedDays: days})
			parent[root(i)] = root(int(j))
		}
	}

	lead := map[int]int{} // root -> the loop's lead
	for i := range out {
		if len(out[i].Related) == 0 {
			continue
		}
		r := root(i)
		if l, ok := lead[r]; !ok || leads(out[i], out[l], of[i], of[l], cats) {
			lead[r] = i
		}
	}
	for i := range out {
		if len(out[i].Related) == 0 {
			continue
		}
		out[i].Lead = out[lead[root(i)]].CategoryID
		slices.SortFunc(out[i].Related, func(a, b Link) int {
			if c := cmp.Compare(b.SharedDays, a.SharedDays); c != 0 {
				return c
			}
			if c := cmp.Compare(cats[a.CategoryID].Name, cats[b.CategoryID].Name); c != 0 {
				return c
			}
			return cmp.Compare(a.CategoryID, b.CategoryID)
		})
	}
}

// leads reports whether a (with facts fa) goes before b as the lead of
// their loop.
func leads(a, b Pattern, fa, fb *categoryFacts, cats map[string]Category) bool {
	at, bt := cats[a.CategoryID].Kind == store.TagTrigger, cats[b.CategoryID].Kind == store.TagTrigger
	if at != bt {
		return at
	}
	if c := cmp.Compare(fa.days.count(), fb.days.count()); c != 0 {
		return c > 0
	}
	if a.Name != b.Name {
		return a.Name < b.Name
	}
	return a.CategoryID < b.CategoryID
}

// sharedDays counts the days of f's situations that the other category
// shows up in too.
func (x *index) sharedDays(f *categoryFacts, other int32) int {
	days := map[int]bool{}
	for _, si := range f.segments {
		if x.categoryBefore(x.segmentTags(si), other) {
			days[x.segDays[si]] = true
		}
	}
	return len(days)
}
