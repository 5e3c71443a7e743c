package detect

import (
	"cmp"
	"slices"
	"time"
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
// most days; ties go by name, then category id.
func link(out []Pattern, in Input, facts map[string]*categoryFacts, loc *time.Location) {
	cats := in.Categories
	index := make(map[string]int, len(out))
	for i, p := range out {
		if facts[p.CategoryID] != nil {
			index[p.CategoryID] = i
		}
	}
	// Count the situations each pair shares; the days only for the pairs
	// that share enough of them, which are few.
	shared := map[[2]int]int{}
	var here []int
	for _, sg := range in.Segments {
		here = here[:0]
		for k, t := range sg.Tags {
			if i, ok := index[t.CategoryID]; ok && !categoryBefore(sg.Tags[:k], t.CategoryID) {
				here = append(here, i)
			}
		}
		for a, i := range here {
			for _, j := range here[a+1:] {
				shared[[2]int{min(i, j), max(i, j)}]++
			}
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
	for ij, n := range shared {
		i, j := ij[0], ij[1]
		fi, fj := facts[out[i].CategoryID], facts[out[j].CategoryID]
		if n < MinDays || n*100 < LinkSharePercent*min(len(fi.segments), len(fj.segments)) {
			continue
		}
		var days int
		if len(fi.segments) <= len(fj.segments) {
			days = sharedDays(fi, out[j].CategoryID, loc)
		} else {
			days = sharedDays(fj, out[i].CategoryID, loc)
		}
		if days < MinDays {
			continue
		}
		out[i].Related = append(out[i].Related, Link{CategoryID: out[j].CategoryID, SharedDays: days})
		out[j].Related = append(out[j].Related, Link{CategoryID: out[i].CategoryID, SharedDays: days})
		parent[root(i)] = root(j)
	}

	lead := map[int]int{} // root -> the loop's lead
	for i := range out {
		if len(out[i].Related) == 0 {
			continue
		}
		r := root(i)
		if l, ok := lead[r]; !ok || leads(out[i], out[l], facts, cats) {
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

// leads reports whether a goes before b as the lead of their loop.
func leads(a, b Pattern, facts map[string]*categoryFacts, cats map[string]Category) bool {
	at, bt := cats[a.CategoryID].Kind == trigger, cats[b.CategoryID].Kind == trigger
	if at != bt {
		return at
	}
	if c := cmp.Compare(facts[a.CategoryID].days.count(), facts[b.CategoryID].days.count()); c != 0 {
		return c > 0
	}
	if a.Name != b.Name {
		return a.Name < b.Name
	}
	return a.CategoryID < b.CategoryID
}

// sharedDays counts the days of f's situations that other shows up in too.
func sharedDays(f *categoryFacts, other string, loc *time.Location) int {
	days := map[int]bool{}
	for _, sg := range f.segments {
		if categoryBefore(sg.Tags, other) {
			days[day(sg.OccurredAt, loc)] = true
		}
	}
	return len(days)
}
