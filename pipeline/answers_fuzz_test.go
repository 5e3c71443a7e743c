package pipeline

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/recur-journal/recur/store"
)

// The targets below feed arbitrary answers to each step's validator. None
// may panic, and whatever one accepts must satisfy every bound of its
// schema (checked here independently of the schema checker) and refer only
// to sentences, situations, feelings, items and categories that exist.

// FuzzAnswerSchema: an answer that passes the schema check always decodes
// into the step's Go type, so no schema-valid answer is refused late or
// read half.
func FuzzAnswerSchema(f *testing.F) {
	for _, seed := range []string{
		`{"language":"pt","parts":[{"text":"I was late.","kind":"situation"}]}`,
		`{"situations":[{"first":1,"last":2}]}`,
		`{"situations":[{"situation":1,"feelings":["calm"],"triggers":[],"good_behaviours":["a run"],"bad_behaviours":[],"persons":["Anna"],"locations":[],"activities":[]}]}`,
		`{"assignments":[{"item":"t1","category":"","new_category":"late trains"}]}`,
		`{"description":"You rest."}`,
		`{"situations":[{"first":1e0,"last":2}]}`, `{"situations":[{"first":-0,"last":99999999999999999999}]}`,
		`{"description":"a","description":"b"}`, `[]`, `null`, `{"situations":[]} x`,
	} {
		f.Add(seed)
	}
	checks := []struct {
		schema *schema
		into   func() any
	}{
		{translateChecks, func() any { return &translateAnswer{} }},
		{segmentChecks, func() any { return &segmentAnswer{} }},
		{mustParseSchema(extractSchema(vocabulary())), func() any { return &extractAnswer{} }},
		{mustParseSchema(readSchema(vocabulary())), func() any { return &readAnswer{} }},
		{categoriseChecks, func() any { return &categoriseAnswer{} }},
		{describeChecks, func() any {
			return &struct {
				Description string `json:"description"`
			}{}
		}},
	}
	f.Fuzz(func(t *testing.T, content string) {
		for _, c := range checks {
			if c.schema.checkAnswer(content) != nil {
				continue
			}
			if err := decode(content, c.schema, c.into()); err != nil {
				t.Fatalf("the schema check passed %q, the decoder refused it: %v", content, err)
			}
		}
	})
}

func FuzzTranslateAnswer(f *testing.F) {
	f.Add(`{"language":"pt","parts":[{"text":"I woke late.","kind":"situation"}]}`, "Acordei tarde.")
	f.Add(`{"language":" PT-br ","parts":[{"text":"  Monday. ","kind":"other"},{"text":" I woke late.  ","kind":"situation"}]}`, "Segunda. Acordei tarde.")
	f.Add(`{"language":"","parts":[]}`, "")
	f.Add(`{"language":"de","parts":[{"text":"`+strings.Repeat("a", 200)+`","kind":"other"}]}`, "Ja.")
	f.Fuzz(func(t *testing.T, content, original string) {
		var a translateAnswer
		if a.accept(content, original) != nil {
			return
		}
		if a.Translation == "" || a.Translation != strings.TrimSpace(a.Translation) {
			t.Fatalf("accepted translation %q", a.Translation)
		}
		n, m := utf8.RuneCountInString(original), utf8.RuneCountInString(a.Translation)
		if m*5 < n || m > n*5+50 {
			t.Fatalf("accepted a translation of %d characters for %d", m, n)
		}
		if a.Language != "" && !regexp.MustCompile(`^[a-z]{2}$`).MatchString(a.Language) {
			t.Fatalf("accepted language %q", a.Language)
		}
		var raw map[string]json.RawMessage
		if err := json.Unmarshal([]byte(content), &raw); err != nil || len(raw) != 2 || raw["language"] == nil || raw["parts"] == nil {
			t.Fatalf("accepted %q, which is not exactly {language, parts}", content)
		}
		// Each situation is the text of a situation part, in order, and a
		// slice of the translation by construction.
		var want []string
		for _, p := range a.Parts {
			if text := strings.TrimSpace(p.Text); p.Kind == "situation" && text != "" {
				want = append(want, text)
			}
		}
		if len(a.Situations) != len(want) {
			t.Fatalf("%d situations from %d situation parts", len(a.Situations), len(want))
		}
		prev := 0
		for i, sp := range a.Situations {
			if sp.Start < prev || sp.End > len(a.Translation) || a.Translation[sp.Start:sp.End] != want[i] {
				t.Fatalf("situation %d is %d-%d of %q, not the part %q after %d", i, sp.Start, sp.End, a.Translation, want[i], prev)
			}
			prev = sp.End
		}
	})
}

func FuzzSegmentAnswer(f *testing.F) {
	const text = "I woke late. The train was late. I was anxious.\nI ran."
	f.Add(`{"situations":[{"first":1,"last":2},{"first":4,"last":4}]}`, text)
	f.Add(`{"situations":[{"first":2,"last":1}]}`, text)
	f.Add(`{"situations":[{"first":1,"last":3},{"first":3,"last":4}]}`, text)
	f.Add(`{"situations":[]}`, "")
	f.Fuzz(func(t *testing.T, content, text string) {
		sentences := splitSentences(text)
		spans, err := acceptSegments(content, sentences)
		if err != nil {
			return
		}
		if len(spans) > len(sentences) {
			t.Fatalf("%d situations from %d sentences", len(spans), len(sentences))
		}
		starts := map[int]bool{}
		ends := map[int]bool{}
		for _, s := range sentences {
			starts[s.Start], ends[s.End] = true, true
		}
		prev := -1
		for i, sp := range spans {
			if !starts[sp.Start] || !ends[sp.End] || sp.Start <= prev || sp.End <= sp.Start || sp.End > len(text) {
				t.Fatalf("situation %d is %d-%d, not whole sentences in order after %d", i, sp.Start, sp.End, prev)
			}
			prev = sp.End - 1
		}
	})
}

func FuzzExtractAnswer(f *testing.F) {
	f.Add(`{"situations":[{"situation":1,"feelings":["anxious","Anxious "],"triggers":["a  late train"],"good_behaviours":[],"bad_behaviours":["skipped lunch"],"persons":["my boss","My Boss"],"locations":["home"],"activities":["commuting"]}]}`, uint8(1))
	f.Add(`{"situations":[{"situation":2,"feelings":[],"triggers":[" "],"good_behaviours":[],"bad_behaviours":[],"persons":[],"locations":[],"activities":[]}]}`, uint8(2))
	f.Add(`{"situations":[{"situation":1,"feelings":["calm","sad","tired","happy","proud"],"triggers":[],"good_behaviours":[],"bad_behaviours":[],"persons":[],"locations":[],"activities":[]}]}`, uint8(3))
	feelings := vocabulary()
	byName := feelingsByName(feelings)
	byID := map[string]store.Feeling{}
	for _, fl := range feelings {
		byID[fl.ID] = fl
	}
	schema := extractSchema(feelings)
	f.Fuzz(func(t *testing.T, content string, segments uint8) {
		n := int(segments%8) + 1
		names := known{}
		names.add(&store.Tag{Type: store.TagPerson, Name: "Anna"})
		names.add(&store.Tag{Type: store.TagTrigger, Name: "a late train"})
		tags, err := acceptExtract(content, schema, n, byName, names)
		if err != nil {
			return
		}
		if len(tags) != n {
			t.Fatalf("%d tag lists for %d segments", len(tags), n)
		}
		for i, seg := range tags {
			count := map[store.TagType]int{}
			seen := map[string]bool{}
			for _, tag := range seg {
				count[tag.Type]++
				key := string(tag.Type) + "\x00" + strings.ToLower(tag.Name) + "\x00" + tag.FeelingID
				if seen[key] {
					t.Fatalf("segment %d has %s %q twice", i, tag.Type, tag.Name)
				}
				seen[key] = true
				switch tag.Type {
				case store.TagPositiveFeeling, store.TagNegativeFeeling:
					fl, ok := byID[tag.FeelingID]
					if !ok || fl.Name != tag.Name || fl.TagType() != tag.Type {
						t.Fatalf("segment %d has feeling %+v, not one of the vocabulary", i, tag)
					}
				case store.TagTrigger, store.TagGoodBehaviour, store.TagBadBehaviour, store.TagPerson, store.TagLocation, store.TagActivity:
					if tag.Name == "" || utf8.RuneCountInString(tag.Name) > 80 || tag.Name != strings.Join(strings.Fields(tag.Name), " ") {
						t.Fatalf("segment %d has %s name %q", i, tag.Type, tag.Name)
					}
				default:
					t.Fatalf("segment %d has a tag of type %q", i, tag.Type)
				}
			}
			if feelings := count[store.TagPositiveFeeling] + count[store.TagNegativeFeeling]; feelings > 4 {
				t.Fatalf("segment %d has %d feelings, at most 4 allowed", i, feelings)
			}
			for typ, c := range count {
				if c > 6 {
					t.Fatalf("segment %d has %d %s names, at most 6 allowed", i, c, typ)
				}
			}
		}
	})
}

func FuzzCategoriseAnswer(f *testing.F) {
	f.Add(`{"assignments":[{"item":"t1","category":"ct1","new_category":""},{"item":"g2","category":"","new_category":"Going  for a RUN"},{"item":"b3","category":"cg1","new_category":"skipping meals"}]}`)
	f.Add(`{"assignments":[{"item":"t1","category":"","new_category":"Criticism at work"},{"item":"g2","category":"","new_category":"x"},{"item":"b3","category":"","new_category":"y"}]}`)
	f.Add(`{"assignments":[{"item":" t1 ","category":"","new_category":"` + strings.Repeat("é", 60) + `"}]}`)
	f.Add(`{"assignments":[{"item":"t1","category":"ct2","new_category":""},{"item":"g2","category":"","new_category":"runs with jonas"},{"item":"b3","category":"","new_category":"Late Trains"}]}`)
	items := []item{
		{ref: "t1", kind: store.TagTrigger, name: "a late train", situation: "The train was late. I was anxious.", valence: -1},
		{ref: "g2", kind: store.TagGoodBehaviour, name: "went for a run", situation: "Ran along the canal with Jonas. So happy.", valence: 1},
		{ref: "b3", kind: store.TagBadBehaviour, name: "skipped lunch"},
	}
	offers := map[string]offer{
		"ct1": {"ct1", store.Category{ID: "c-trains", Kind: store.TagTrigger, Name: "late trains"}, -1},
		"ct2": {"ct2", store.Category{ID: "c-praise", Kind: store.TagTrigger, Name: "praise"}, 1},
		"cg1": {"cg1", store.Category{ID: "c-running", Kind: store.TagGoodBehaviour, Name: "running"}, 0},
	}
	valence := map[string]int{"c-trains": -1, "c-praise": 1}
	existing := map[store.TagType][]store.Category{store.TagTrigger: {offers["ct1"].cat, {ID: "c-work", Kind: store.TagTrigger, Name: "criticism at work", Rejected: true}}}
	ids := map[string]store.TagType{"c-trains": store.TagTrigger, "c-praise": store.TagTrigger, "c-running": store.TagGoodBehaviour, "c-work": store.TagTrigger}
	f.Fuzz(func(t *testing.T, content string) {
		r := &runner{categories: existing}
		placed, err := r.place(content, items, offers)
		if err != nil {
			return
		}
		if len(placed) != len(items) {
			t.Fatalf("%d of %d items placed", len(placed), len(items))
		}
		for _, it := range items {
			nt, ok := placed[it.ref]
			switch {
			case !ok:
				t.Fatalf("item %s not placed", it.ref)
			case nt.Type != it.kind || nt.Name != it.name:
				t.Fatalf("item %s became %+v", it.ref, nt)
			case (nt.CategoryID == "") == (nt.NewCategory == ""):
				t.Fatalf("item %s has category %q and new category %q: want exactly one", it.ref, nt.CategoryID, nt.NewCategory)
			case nt.CategoryID != "" && ids[nt.CategoryID] != it.kind:
				t.Fatalf("item %s of kind %s joined category %q", it.ref, it.kind, nt.CategoryID)
			case valence[nt.CategoryID]*it.valence < 0:
				t.Fatalf("item %s of valence %d joined category %q of the other valence", it.ref, it.valence, nt.CategoryID)
			case nt.NewCategory != "" && (utf8.RuneCountInString(nt.NewCategory) > 60 ||
				nt.NewCategory != strings.Join(strings.Fields(nt.NewCategory), " ")):
				t.Fatalf("item %s founds category %q", it.ref, nt.NewCategory)
			}
			// Capitals only where the item or its situation has the word so.
			for _, w := range strings.FieldsFunc(nt.NewCategory, func(r rune) bool { return !unicode.IsLetter(r) }) {
				if w != strings.ToLower(w) && !strings.Contains(it.name+" "+it.situation, w) {
					t.Fatalf("item %s founds category %q, capitalising %q", it.ref, nt.NewCategory, w)
				}
			}
		}
	})
}

func FuzzDescribeAnswer(f *testing.F) {
	f.Add(`{"description":"You feel anxious when the train is late. You go for a run."}`)
	f.Add(`{"description":"You argue with Bruno at the gym."}`)
	f.Add(`{"description":"One. Two. Three. Four. Five. Six. Seven."}`)
	f.Add(`{"description":"  "}`)
	f.Add(`{"description":"You call it \"fine\"."}`)
	f.Add(`{"description":"You feel tense. You should rest."}`)
	names := []store.Tag{
		{Type: store.TagPerson, Name: "Bruno"}, {Type: store.TagLocation, Name: "the gym"},
		{Type: store.TagPerson, Name: "Anna"}, {Type: store.TagActivity, Name: "commuting"},
	}
	const grounding = "late trains\nthe train was late again. anna was there.\nanna\ncommuting"
	f.Fuzz(func(t *testing.T, content string) {
		d, err := acceptDescription(content, grounding, names)
		if err != nil {
			return
		}
		if d == "" || d != strings.TrimFunc(d, unicode.IsSpace) || utf8.RuneCountInString(d) > 700 {
			t.Fatalf("accepted description %q", d)
		}
		if n := len(sentenceEnd.FindAllStringIndex(d, -1)); n > 6 {
			t.Fatalf("accepted a description of %d sentences", n)
		}
		if strings.ContainsAny(d, `"“”«»`) {
			t.Fatalf("accepted %q, which quotes", d)
		}
		lower := strings.ToLower(d)
		if containsWord(lower, "should") || strings.Contains(lower, "try to") {
			t.Fatalf("accepted %q, which advises", d)
		}
		for _, name := range []string{"bruno", "the gym"} {
			if containsWord(lower, name) {
				t.Fatalf("accepted %q, which names %q that no situation does", d, name)
			}
		}
	})
}

// FuzzReadAnswer: a segment-and-extract answer that is accepted names
// whole sentences, in order, and gives each situation its tags.
func FuzzReadAnswer(f *testing.F) {
	const text = "I woke late. The train was late. I was anxious.\nI ran."
	f.Add(`{"situations":[{"first":1,"last":3,"feelings":["anxious"],"triggers":["a late train"],"good_behaviours":[],"bad_behaviours":[],"persons":[],"locations":[],"activities":[]}]}`, text)
	f.Add(`{"situations":[{"first":2,"last":1,"feelings":[],"triggers":[],"good_behaviours":[],"bad_behaviours":[],"persons":[],"locations":[],"activities":[]}]}`, text)
	f.Add(`{"situations":[]}`, "")
	feelings := vocabulary()
	byName := feelingsByName(feelings)
	schema := readSchema(feelings)
	f.Fuzz(func(t *testing.T, content, text string) {
		sentences := splitSentences(text)
		spans, tags, err := acceptRead(content, schema, sentences, byName, known{})
		if err != nil {
			return
		}
		if len(tags) != len(spans) || len(spans) > len(sentences) {
			t.Fatalf("%d tag lists for %d situations of %d sentences", len(tags), len(spans), len(sentences))
		}
		starts, ends := map[int]bool{}, map[int]bool{}
		for _, s := range sentences {
			starts[s.Start], ends[s.End] = true, true
		}
		prev := -1
		for i, sp := range spans {
			if !starts[sp.Start] || !ends[sp.End] || sp.Start <= prev || sp.End <= sp.Start {
				t.Fatalf("situation %d is %d-%d, not whole sentences in order after %d", i, sp.Start, sp.End, prev)
			}
			prev = sp.End - 1
		}
	})
}
