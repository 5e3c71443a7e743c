// Package evaluate measures the analysis against labelled journals: it runs
// each journal through the real pipeline and detection in a throwaway data
// folder and compares what they found with the labels (see evaluate/journals/README.md).
package evaluate

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"
	"time"

	"golang.org/x/text/language"

	"github.com/recur-journal/recur/evaluate/journals"
	"github.com/recur-journal/recur/store"
)

// Journal is a labelled journal: entries with the situations a careful
// reader marks in them, and the threads planted across its days.
type Journal struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// Timezone is the writer's IANA zone: days are their local days.
	Timezone string `json:"timezone"`
	// Locale is the writer's app_locale, the language descriptions are
	// written in; empty is English.
	Locale string `json:"locale,omitempty"`
	// Now, when set, is the moment the journal is read at; by default 09:00
	// local on the day after the last entry.
	Now     *time.Time `json:"now,omitempty"`
	Entries []Entry    `json:"entries"`
	Threads []Thread   `json:"threads"`

	loc *time.Location
}

// Entry is one labelled journal entry.
type Entry struct {
	OccurredAt time.Time `json:"occurred_at"`
	Text       string    `json:"text"`
	// Language is the entry's ISO 639-1 code; empty means English.
	Language   string      `json:"language,omitempty"`
	Situations []Situation `json:"situations"`
}

// Situation is a labelled situation: a range of the entry's sentences,
// counted from 1 as Sentences cuts the text, and the feelings it tells.
type Situation struct {
	First    int      `json:"first"`
	Last     int      `json:"last"`
	Feelings []string `json:"feelings"`
}

// Thread is a planted loop: what keeps coming back, on which local days,
// with whom, where and while doing what.
type Thread struct {
	Name string `json:"name"`
	// Kinds are the pattern kinds that may stand for it (trigger,
	// good_behaviour, bad_behaviour).
	Kinds        []store.TagType `json:"kinds"`
	Days         []string        `json:"days"` // YYYY-MM-DD, local
	Urgent       bool            `json:"urgent"`
	Correlations []Correlation   `json:"correlations"`
}

// Correlation is a person, location or activity a thread comes with; any
// of its names counts.
type Correlation struct {
	Type  store.TagType `json:"type"`
	Names []string      `json:"names"`
}

// Parse reads and checks a labelled journal.
func Parse(b []byte) (*Journal, error) {
	var j Journal
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil {
		return nil, err
	}
	if err := j.Validate(); err != nil {
		return nil, err
	}
	return &j, nil
}

// Validate checks the labels fit the entries: a known timezone, situation
// ranges inside their entry, days as dates, known kinds and types.
func (j *Journal) Validate() error {
	if j.Name == "" {
		return fmt.Errorf("the journal has no name")
	}
	loc, err := time.LoadLocation(j.Timezone)
	if err != nil || j.Timezone == "" {
		return fmt.Errorf("%s: timezone %q is not an IANA zone name", j.Name, j.Timezone)
	}
	j.loc = loc
	if _, err := language.Parse(j.locale()); err != nil {
		return fmt.Errorf("%s: locale %q is not a language tag", j.Name, j.Locale)
	}
	if len(j.Entries) == 0 {
		return fmt.Errorf("%s: no entries", j.Name)
	}
	for i, e := range j.Entries {
		n := len(Sentences(e.Text))
		last := 0
		for _, s := range e.Situations {
			if s.First <= last || s.Last < s.First || s.Last > n {
				return fmt.Errorf("%s: entry %d (%s): situation %d-%d does not fit its %d sentences in order",
					j.Name, i+1, e.OccurredAt.Format(time.RFC3339), s.First, s.Last, n)
			}
			last = s.Last
		}
	}
	for _, t := range j.Threads {
		for _, k := range t.Kinds {
			if !store.Categorised(k) {
				return fmt.Errorf("%s: thread %q: kind %q is not trigger, good_behaviour or bad_behaviour", j.Name, t.Name, k)
			}
		}
		for _, d := range t.Days {
			if _, err := time.Parse(time.DateOnly, d); err != nil {
				return fmt.Errorf("%s: thread %q: day %q is not YYYY-MM-DD", j.Name, t.Name, d)
			}
		}
		for _, c := range t.Correlations {
			if c.Type != store.TagPerson && c.Type != store.TagLocation && c.Type != store.TagActivity {
				return fmt.Errorf("%s: thread %q: correlation type %q is not person, location or activity", j.Name, t.Name, c.Type)
			}
		}
	}
	return nil
}

// locale is Locale, or en when empty.
func (j *Journal) locale() string {
	if j.Locale == "" {
		return "en"
	}
	return j.Locale
}

// Day is the writer's local day of t, as YYYY-MM-DD: an entry written at
// 00:30 belongs to the new day.
func (j *Journal) Day(t time.Time) string { return t.In(j.loc).Format(time.DateOnly) }

// End is the moment the journal is read at: Now, or 09:00 local on the day
// after the last entry.
func (j *Journal) End() time.Time {
	if j.Now != nil {
		return *j.Now
	}
	last := slices.MaxFunc(j.Entries, func(a, b Entry) int { return a.OccurredAt.Compare(b.OccurredAt) }).OccurredAt.In(j.loc)
	return time.Date(last.Year(), last.Month(), last.Day()+1, 9, 0, 0, 0, j.loc).UTC()
}

// Translated reports whether the entry is written in another language than
// English, so the pipeline translates it.
func (e Entry) Translated() bool { return e.Language != "" && e.Language != "en" }

// lexiconSuffix names the scripted model's lexicon shipped beside a journal.
const lexiconSuffix = ".lexicon.json"

// Shipped returns the labelled journals built into the binary, by name.
func Shipped() ([]*Journal, error) {
	names, err := fs.Glob(journals.FS, "*.json")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var out []*Journal
	for _, n := range names {
		if strings.HasSuffix(n, lexiconSuffix) {
			continue
		}
		b, err := fs.ReadFile(journals.FS, n)
		if err != nil {
			return nil, err
		}
		j, err := Parse(b)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", n, err)
		}
		out = append(out, j)
	}
	return out, nil
}

// ShippedNamed returns the shipped journal of that name (its file name
// without .json), or false.
func ShippedNamed(name string) (*Journal, bool) {
	b, err := fs.ReadFile(journals.FS, path.Clean(name)+".json")
	if err != nil || strings.HasSuffix(name, strings.TrimSuffix(lexiconSuffix, ".json")) {
		return nil, false
	}
	j, err := Parse(b)
	return j, err == nil
}
