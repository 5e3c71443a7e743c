package evaluate

import (
	"io/fs"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recur-journal/recur/evaluate/journals"
	"github.com/recur-journal/recur/store"
)

func mustParse(t *testing.T, doc string) *Journal {
	t.Helper()
	j, err := Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// tiny is a labelled journal in Chicago with one thread on three days, one
// of them an entry written after midnight and one in Spanish.
const tiny = `{"name": "tiny", "timezone": "America/Chicago",
 "entries": [
  {"occurred_at": "2026-03-11T04:10:00Z", "text": "Dana criticised my plan. I felt anxious. Then I stayed late.",
   "situations": [{"first": 1, "last": 3, "feelings": ["anxious", "tired"]}]},
  {"occurred_at": "2026-03-12T05:40:00Z", "text": "Dana criticised me again. I was anxious.",
   "situations": [{"first": 1, "last": 2, "feelings": ["anxious"]}]},
  {"occurred_at": "2026-03-13T23:00:00Z", "language": "es", "text": "Dana me criticó. Estaba ansiosa.",
   "situations": [{"first": 1, "last": 2, "feelings": ["anxious"]}]}
 ],
 "threads": [{"name": "criticism", "kinds": ["trigger", "bad_behaviour"], "urgent": true,
   "days": ["2026-03-10", "2026-03-12", "2026-03-13"],
   "correlations": [{"type": "person", "names": ["Dana", "my manager"]}, {"type": "location", "names": ["the office"]}]}]}`

func TestDayIsTheWritersLocalDay(t *testing.T) {
	t.Parallel()
	j := mustParse(t, tiny)
	// 04:10 UTC on 11 March is 23:10 on the 10th in Chicago (daylight time
	// began on 8 March); 05:40 UTC on the 12th is 00:40 local, the new day.
	for at, want := range map[string]string{"2026-03-11T04:10:00Z": "2026-03-10", "2026-03-12T05:40:00Z": "2026-03-12"} {
		tm, _ := time.Parse(time.RFC3339, at)
		if got := j.Day(tm); got != want {
			t.Errorf("Day(%s) = %s, want %s", at, got, want)
		}
	}
	if got, want := j.End(), time.Date(2026, 3, 14, 14, 0, 0, 0, time.UTC); !got.Equal(want) {
		t.Errorf("End = %s, want 09:00 Chicago the day after the last entry (%s)", got, want)
	}
}

func TestMatchRule(t *testing.T) {
	t.Parallel()
	th := Thread{Kinds: []store.TagType{store.TagTrigger}, Days: []string{"2026-03-01", "2026-03-02", "2026-03-03"}}
	for _, c := range []struct {
		name string
		p    FoundPattern
		want bool
	}{
		{"AllDays", FoundPattern{Kind: "trigger", Days: []string{"2026-03-01", "2026-03-02"}}, true},
		{"SixtyPercent", FoundPattern{Kind: "trigger", Days: []string{"2026-03-01", "2026-03-02", "2026-03-03", "2026-04-01", "2026-04-02"}}, true},
		{"UnderSixty", FoundPattern{Kind: "trigger", Days: []string{"2026-03-01", "2026-03-02", "2026-04-01", "2026-04-02"}}, false},
		{"OtherKind", FoundPattern{Kind: "good_behaviour", Days: []string{"2026-03-01"}}, false},
		{"NoDays", FoundPattern{Kind: "trigger"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := matches(c.p, th); got != c.want {
				t.Errorf("matches = %t, want %t", got, c.want)
			}
		})
	}
}

// TestCardsGroupLoops: the patterns of one loop are one card, as the
// patterns page shows them, so a loop found whole is no duplicate.
func TestCardsGroupLoops(t *testing.T) {
	t.Parallel()
	deck := cards([]FoundPattern{
		{ID: "a", Loop: "a", Name: "criticism from Dana"},
		{ID: "b", Name: "deadlines"},
		{ID: "c", Loop: "a", Name: "working late"},
		{ID: "d", Name: "running"},
	})
	var got [][]string
	for _, c := range deck {
		var names []string
		for _, p := range c.Patterns {
			names = append(names, p.ID)
		}
		got = append(got, names)
	}
	if want := [][]string{{"a", "c"}, {"b"}, {"d"}}; !slices.EqualFunc(got, want, slices.Equal[[]string]) {
		t.Errorf("cards = %v, want %v", got, want)
	}
}

func TestScoreThreads(t *testing.T) {
	t.Parallel()
	j := mustParse(t, tiny)
	days := []string{"2026-03-10", "2026-03-12", "2026-03-13"}
	found := Found{Patterns: []FoundPattern{
		{Name: "criticism from Dana", Kind: "trigger", Days: days, Correlations: []Tag{{"person", "dana"}, {"activity", "meetings"}}},
		{Name: "working late", Kind: "bad_behaviour", Days: days[:2], Urgent: false},
		{Name: "deadlines", Kind: "trigger", Days: []string{"2026-03-01", "2026-03-02", "2026-03-12"}},
	}}
	r := Score(j, found)
	if r.ThreadsFound != 1 || r.Recall != 1 {
		t.Errorf("found %d threads, recall %v; want 1 and 1", r.ThreadsFound, r.Recall)
	}
	if r.MatchedPatterns != 2 || len(r.Unmatched) != 1 || r.Unmatched[0].Name != "deadlines" {
		t.Errorf("unmatched = %+v, want deadlines alone", r.Unmatched)
	}
	if got, want := r.Precision, 2.0/3; got != want {
		t.Errorf("precision = %v, want %v", got, want)
	}
	// Each pattern is its own card: the trigger and the behaviour of one
	// loop are two cards for one thread.
	if len(r.Duplicates) != 1 || r.Duplicates[0].Cards != 2 {
		t.Errorf("duplicates = %+v, want the thread on two cards", r.Duplicates)
	}
	if r.UrgentWrong != 1 || r.UrgentRight != 0 {
		t.Errorf("urgent right %d wrong %d; want the labelled urgency missed", r.UrgentRight, r.UrgentWrong)
	}
	if r.CorrelationsRight != 1 || r.Correlations != 2 || !slices.Equal(r.Threads[0].MissingCorrelations, []string{"location: the office"}) {
		t.Errorf("correlations %d of %d, missing %v; want Dana right and the office missing", r.CorrelationsRight, r.Correlations, r.Threads[0].MissingCorrelations)
	}
	if tr := r.Threads[0]; !slices.Equal(tr.TranslatedDays, []string{"2026-03-13"}) || tr.TranslatedDaysFound != 1 {
		t.Errorf("translated days %v found %d, want the Spanish entry's day found", tr.TranslatedDays, tr.TranslatedDaysFound)
	}

	r = Score(j, Found{Patterns: found.Patterns[2:]})
	if r.ThreadsFound != 0 || !slices.Equal(r.Missed, []string{"criticism"}) || r.Precision != 0 {
		t.Errorf("with only an unrelated pattern: found %d, missed %v, precision %v", r.ThreadsFound, r.Missed, r.Precision)
	}
}

func TestScoreSituations(t *testing.T) {
	t.Parallel()
	j := mustParse(t, tiny)
	e0 := j.Entries[0].Text // three sentences, labelled as one situation
	second := strings.Index(e0, "I felt")
	found := []FoundEntry{
		// Cut in two: neither range is the labelled one.
		{Text: e0, Situations: []FoundSituation{{Start: 0, End: second - 1, Feelings: []string{"anxious"}}, {Start: second, End: len(e0), Feelings: []string{"anxious", "tired"}}}},
		// Right, with the same feeling.
		{Text: j.Entries[1].Text, Situations: []FoundSituation{{Start: 0, End: len(j.Entries[1].Text), Feelings: []string{"anxious"}}}},
		// A translation with another number of sentences is not compared.
		{Text: "Dana criticised me and I was anxious.", Situations: []FoundSituation{{Start: 0, End: 10}}},
	}
	b, f := scoreSituations(j, found)
	if b.Labelled != 2 || b.Found != 3 || b.Right != 1 || b.NotCompared != 1 {
		t.Errorf("boundaries = %+v, want 2 labelled, 3 found, 1 right, 1 not compared", b)
	}
	// Entry one: its best match holds "I felt anxious. Then I stayed late."
	// with anxious and tired, as labelled (1); entry two agrees (1).
	if f.Situations != 2 || f.Agreement != 1 {
		t.Errorf("feelings = %+v, want full agreement over 2", f)
	}
}

func TestSentences(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		text string
		want []string
	}{
		{"Dr. Yilmaz was late. I waited.", []string{"Dr. Yilmaz was late.", "I waited."}},
		{"We met J. Park, e.g. at lunch. Fine!", []string{"We met J. Park, e.g. at lunch.", "Fine!"}},
		{`She said "unfinished." Then left... and came back? Yes.`, []string{`She said "unfinished."`, "Then left... and came back?", "Yes."}},
		{"Es kostete 3.5 Euro, z.B. für Brot. Gut.", []string{"Es kostete 3.5 Euro, z.B. für Brot.", "Gut."}},
	} {
		var got []string
		for _, s := range Sentences(c.text) {
			got = append(got, c.text[s.Start:s.End])
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("Sentences(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

func TestValidateRejectsLabelsOutsideTheEntry(t *testing.T) {
	t.Parallel()
	bad := strings.Replace(tiny, `"first": 1, "last": 3`, `"first": 1, "last": 4`, 1)
	if _, err := Parse([]byte(bad)); err == nil || !strings.Contains(err.Error(), "does not fit its 3 sentences") {
		t.Errorf("a situation past the last sentence: %v", err)
	}
	bad = strings.Replace(tiny, `"America/Chicago"`, `"Mars/Olympus"`, 1)
	if _, err := Parse([]byte(bad)); err == nil {
		t.Error("an unknown timezone was accepted")
	}
}

// TestShippedJournals checks the shipped journals are what evaluate/journals/README.md
// promises: six weeks each, three languages between them, entries written
// after midnight counted on the new day, and a lexicon beside each.
func TestShippedJournals(t *testing.T) {
	t.Parallel()
	list, err := Shipped()
	if err != nil {
		t.Fatal(err)
	}
	if len(list) < 2 {
		t.Fatalf("%d shipped journals, want at least two", len(list))
	}
	languages := map[string]bool{}
	otherLocale, reopened, clockChange := false, false, false
	for _, j := range list {
		otherLocale = otherLocale || j.locale() != "en"
		for _, th := range j.Threads {
			// A thread quiet for over a week in its span closes and comes back.
			days := slices.Sorted(slices.Values(th.Days))
			for i := 1; i < len(days); i++ {
				a, _ := time.Parse(time.DateOnly, days[i-1])
				b, _ := time.Parse(time.DateOnly, days[i])
				if b.Sub(a) > 8*24*time.Hour {
					reopened = true
					_, before := a.In(j.loc).Zone()
					_, after := b.Add(23 * time.Hour).In(j.loc).Zone()
					clockChange = clockChange || before != after
				}
			}
		}
		first, last := j.Entries[0].OccurredAt, j.Entries[0].OccurredAt
		afterMidnight, threadAfterMidnight := 0, 0
		for _, e := range j.Entries {
			first, last = minTime(first, e.OccurredAt), maxTime(last, e.OccurredAt)
			lang := e.Language
			if lang == "" {
				lang = "en"
			}
			languages[lang] = true
			if h := e.OccurredAt.In(j.loc).Hour(); h < 3 {
				afterMidnight++
				for _, th := range j.Threads {
					if slices.Contains(th.Days, j.Day(e.OccurredAt)) {
						threadAfterMidnight++
					}
				}
			}
		}
		if weeks := last.Sub(first).Hours() / 24 / 7; weeks < 5.5 {
			t.Errorf("%s spans %.1f weeks, want six", j.Name, weeks)
		}
		if afterMidnight == 0 || threadAfterMidnight == 0 {
			t.Errorf("%s has %d entries written after midnight, %d on a thread's day; want some of each", j.Name, afterMidnight, threadAfterMidnight)
		}
		if len(j.Threads) < 3 {
			t.Errorf("%s has %d threads, want at least three", j.Name, len(j.Threads))
		}
		if _, err := fs.Stat(journals.FS, j.Name+lexiconSuffix); err != nil {
			t.Errorf("%s has no lexicon for the scripted model: %v", j.Name, err)
		}
	}
	if len(languages) < 3 {
		t.Errorf("languages %v, want three", languages)
	}
	if !otherLocale || !reopened || !clockChange {
		t.Errorf("a journal read in another language than English %t, a thread that closes and comes back %t, "+
			"with the clocks changed while it was away %t: want all", otherLocale, reopened, clockChange)
	}
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// A category that holds a pleasant and an unpleasant situation is named in
// the report; one that holds mixed ones beside either is not.
func TestCrossedCategories(t *testing.T) {
	t.Parallel()
	entries := []FoundEntry{
		{Situations: []FoundSituation{{Valence: -1, Categories: []string{"calls with Mamá"}}, {Valence: 1, Categories: []string{"runs"}}}},
		{Situations: []FoundSituation{{Valence: 1, Categories: []string{"calls with Mamá"}}, {Valence: 0, Categories: []string{"runs"}}}},
		{Failed: true},
		{Situations: []FoundSituation{{Valence: 1, Categories: []string{"calls with Mamá"}}}},
	}
	if got := crossedCategories(entries); !slices.Equal(got, []string{"calls with Mamá"}) {
		t.Fatalf("crossed categories %q, want [calls with Mamá]", got)
	}
}

// A pattern whose name writes a labelled person or place in lower case is
// named in the report; "the farm" and "dad's" in another name are not
// names the labels capitalise.
func TestLostCapitals(t *testing.T) {
	t.Parallel()
	j := &Journal{Threads: []Thread{{Correlations: []Correlation{{Type: store.TagPerson, Names: []string{"Dad", "my father"}},
		{Type: store.TagActivity, Names: []string{"Farming"}}}}}}
	got := lostCapitals(j, []FoundPattern{{Name: "calls from dad"}, {Name: "calls from Dad"}, {Name: "farming chores"}, {Name: "daddy long legs"}})
	if !slices.Equal(got, []string{"calls from dad"}) {
		t.Fatalf("lost capitals %q, want [calls from dad]", got)
	}
}
