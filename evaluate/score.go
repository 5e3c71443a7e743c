package evaluate

import (
	"slices"
	"strings"
	"unicode"

	"github.com/recur-journal/recur/store"
)

// MatchShare is the share of a pattern's days that must be days of a
// thread for the pattern to stand for it.
const MatchShare = 0.6

// Found is what the analysis of a journal produced, in plain values.
type Found struct {
	Patterns []FoundPattern
	// Entries are in the order of the journal's entries.
	Entries []FoundEntry
}

// FoundPattern is a detected pattern with its local days.
type FoundPattern struct {
	ID           string
	Loop         string // the id of the loop's lead; empty in no loop
	Name         string
	Kind         store.TagType
	Urgent       bool
	Days         []string // local YYYY-MM-DD days of the captures it rests on
	Correlations []Tag
	Description  string
}

// Tag is a person, location or activity by type and name.
type Tag struct {
	Type store.TagType
	Name string
}

// FoundEntry is what the pipeline made of one entry.
type FoundEntry struct {
	Failed bool
	// Text is the text the situations are slices of: the translation, or
	// the entry as written when it is English.
	Text       string
	Situations []FoundSituation
}

// FoundSituation is a segment: a byte range of FoundEntry.Text and its feelings.
type FoundSituation struct {
	Start, End int
	Feelings   []string
	// Valence is 1 when the feelings are all pleasant, -1 when all
	// unpleasant, 0 otherwise; Categories are the categories of its
	// triggers and behaviours.
	Valence    int
	Categories []string
}

// Card is what the patterns page shows as one: a pattern in no loop, or
// the patterns of one loop together.
type Card struct {
	Patterns []FoundPattern
}

// cards groups patterns into the cards a reader sees.
func cards(patterns []FoundPattern) []Card {
	var out []Card
	at := map[string]int{} // loop lead -> its card
	for _, p := range patterns {
		if i, ok := at[p.Loop]; ok && p.Loop != "" {
			out[i].Patterns = append(out[i].Patterns, p)
			continue
		}
		if p.Loop != "" {
			at[p.Loop] = len(out)
		}
		out = append(out, Card{Patterns: []FoundPattern{p}})
	}
	return out
}

// matches reports whether p stands for t: its kind is one t lists and at
// least MatchShare of its days are t's days.
func matches(p FoundPattern, t Thread) bool {
	if !slices.Contains(t.Kinds, p.Kind) || len(p.Days) == 0 {
		return false
	}
	in := 0
	for _, d := range p.Days {
		if slices.Contains(t.Days, d) {
			in++
		}
	}
	return float64(in) >= MatchShare*float64(len(p.Days))
}

// Score compares what was found with the journal's labels.
func Score(j *Journal, f Found) JournalReport {
	r := JournalReport{Journal: j.Name, Entries: len(j.Entries), Threads: []ThreadReport{}, Missed: []string{},
		Unmatched: []PatternReport{}, Duplicates: []Duplicate{}}
	for _, e := range f.Entries {
		if e.Failed {
			r.Failed++
		}
	}
	r.Patterns = len(f.Patterns)
	r.Descriptions = scoreDescriptions(j, f.Patterns)
	matched := make([]bool, len(f.Patterns))
	deck := cards(f.Patterns)
	for _, t := range j.Threads {
		tr := ThreadReport{Name: t.Name, Urgent: t.Urgent, Patterns: []string{}, MissingCorrelations: []string{}}
		days := map[string]bool{}
		var mine []FoundPattern
		for i, p := range f.Patterns {
			if matches(p, t) {
				matched[i] = true
				mine = append(mine, p)
				tr.Patterns = append(tr.Patterns, p.Name)
				tr.FoundUrgent = tr.FoundUrgent || p.Urgent
				for _, d := range p.Days {
					days[d] = true
				}
			}
		}
		tr.Found = len(mine) > 0
		for _, c := range deck {
			if slices.ContainsFunc(c.Patterns, func(p FoundPattern) bool { return matches(p, t) }) {
				tr.Cards++
			}
		}
		for _, c := range t.Correlations {
			tr.Correlations++
			if slices.ContainsFunc(mine, func(p FoundPattern) bool { return hasCorrelation(p, c) }) {
				tr.CorrelationsRight++
			} else {
				tr.MissingCorrelations = append(tr.MissingCorrelations, string(c.Type)+": "+c.Names[0])
			}
		}
		for _, e := range j.Entries {
			if d := j.Day(e.OccurredAt); e.Translated() && slices.Contains(t.Days, d) && !slices.Contains(tr.TranslatedDays, d) {
				tr.TranslatedDays = append(tr.TranslatedDays, d)
				if days[d] {
					tr.TranslatedDaysFound++
				}
			}
		}
		r.add(tr)
	}
	for i, p := range f.Patterns {
		if matched[i] {
			r.MatchedPatterns++
		} else {
			r.Unmatched = append(r.Unmatched, PatternReport{Name: p.Name, Kind: string(p.Kind), Days: len(p.Days)})
		}
	}
	r.Recall = share(r.ThreadsFound, len(j.Threads))
	r.Precision = share(r.MatchedPatterns, r.Patterns)
	r.Boundaries, r.Feelings = scoreSituations(j, f.Entries)
	r.CrossedCategories = crossedCategories(f.Entries)
	r.LostCapitals = lostCapitals(j, f.Patterns)
	return r
}

// lostCapitals lists the patterns whose names write a labelled person or
// place that has capitals ("Dad", "Mika") in lower case.
func lostCapitals(j *Journal, patterns []FoundPattern) []string {
	var proper []string
	for _, t := range j.Threads {
		for _, c := range t.Correlations {
			if c.Type != store.TagPerson && c.Type != store.TagLocation {
				continue
			}
			for _, n := range c.Names {
				for _, w := range strings.Fields(n) {
					if lw := strings.ToLower(w); lw != w && !slices.Contains(proper, lw) {
						proper = append(proper, lw)
					}
				}
			}
		}
	}
	out := []string{}
	for _, p := range patterns {
		words := strings.FieldsFunc(p.Name, func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' })
		if slices.ContainsFunc(words, func(w string) bool { return slices.Contains(proper, w) }) {
			out = append(out, p.Name)
		}
	}
	return out
}

// crossedCategories lists the categories that hold both a pleasant and an
// unpleasant situation, which Recur must never make.
func crossedCategories(entries []FoundEntry) []string {
	seen := map[string]int{} // category -> 1 pleasant, 2 unpleasant, 3 both
	out := []string{}
	for _, e := range entries {
		for _, s := range e.Situations {
			bit := map[int]int{1: 1, -1: 2}[s.Valence]
			for _, c := range s.Categories {
				if seen[c]|bit == 3 && seen[c] != 3 {
					out = append(out, c)
				}
				seen[c] |= bit
			}
		}
	}
	slices.Sort(out)
	return out
}

func (r *JournalReport) add(t ThreadReport) {
	r.Threads = append(r.Threads, t)
	if !t.Found {
		r.Missed = append(r.Missed, t.Name)
		return
	}
	r.ThreadsFound++
	if t.Cards > 1 {
		r.Duplicates = append(r.Duplicates, Duplicate{Thread: t.Name, Cards: t.Cards, Patterns: t.Patterns})
	}
	if t.Urgent == t.FoundUrgent {
		r.UrgentRight++
	} else {
		r.UrgentWrong++
	}
	r.CorrelationsRight += t.CorrelationsRight
	r.Correlations += t.Correlations
}

// hasCorrelation reports whether one of p's correlations is c: same type,
// and a name that is one of c's once case and a leading article or
// possessive are set aside.
func hasCorrelation(p FoundPattern, c Correlation) bool {
	for _, got := range p.Correlations {
		if got.Type != c.Type {
			continue
		}
		for _, n := range c.Names {
			if plainName(n) == plainName(got.Name) {
				return true
			}
		}
	}
	return false
}

func plainName(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	for _, p := range []string{"the ", "my ", "a ", "an "} {
		s = strings.TrimPrefix(s, p)
	}
	return s
}

func share(n, of int) float64 {
	if of == 0 {
		return 1
	}
	return float64(n) / float64(of)
}

// scoreSituations compares found situations with the labelled ones, entry
// by entry. A found situation covers the labelled sentences it holds more
// than half of; it is right when its first and last sentence are the
// labelled ones. A translated entry is compared when its translation has as
// many sentences as the original; otherwise it is counted as not compared.
// Feeling agreement is, per labelled situation, the overlap (shared over
// all named) of its feelings with those of the found situation sharing most
// of its sentences, zero when none does.
func scoreSituations(j *Journal, entries []FoundEntry) (BoundaryReport, FeelingReport) {
	var b BoundaryReport
	var fr FeelingReport
	var agreement float64
	for i, e := range j.Entries {
		if i >= len(entries) || entries[i].Failed {
			continue
		}
		got := entries[i]
		want := Sentences(e.Text)
		sentences := Sentences(got.Text)
		if len(sentences) != len(want) {
			b.NotCompared++
			continue
		}
		ranges := make([][2]int, len(got.Situations))
		for k, s := range got.Situations {
			ranges[k] = [2]int{0, -1}
			for n, sn := range sentences {
				if overlap(sn, Span{s.Start, s.End})*2 > sn.End-sn.Start {
					if ranges[k][0] == 0 {
						ranges[k][0] = n + 1
					}
					ranges[k][1] = n + 1
				}
			}
		}
		b.Labelled += len(e.Situations)
		for _, r := range ranges {
			if r[0] > 0 {
				b.Found++
			}
		}
		for _, s := range e.Situations {
			best, most := -1, 0
			for k, r := range ranges {
				if r[0] == s.First && r[1] == s.Last {
					b.Right++
				}
				if n := min(r[1], s.Last) - max(r[0], s.First) + 1; r[0] > 0 && n > most {
					best, most = k, n
				}
			}
			fr.Situations++
			if best >= 0 {
				agreement += jaccard(s.Feelings, got.Situations[best].Feelings)
			}
		}
	}
	b.Precision, b.Recall = share(b.Right, b.Found), share(b.Right, b.Labelled)
	fr.Agreement = 0
	if fr.Situations > 0 {
		fr.Agreement = agreement / float64(fr.Situations)
	}
	return b, fr
}

func overlap(a, b Span) int { return max(0, min(a.End, b.End)-max(a.Start, b.Start)) }

func jaccard(a, b []string) float64 {
	in := map[string]int{}
	for _, x := range a {
		in[x] |= 1
	}
	for _, x := range b {
		in[x] |= 2
	}
	if len(in) == 0 {
		return 1
	}
	shared := 0
	for _, v := range in {
		if v == 3 {
			shared++
		}
	}
	return float64(shared) / float64(len(in))
}

// feelingTypes are the tag types of feelings.
var feelingTypes = []store.TagType{store.TagPositiveFeeling, store.TagNegativeFeeling, store.TagMixedFeeling}
