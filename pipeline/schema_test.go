package pipeline

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/recur-journal/recur/store"
)

// vocabulary is a small fixed vocabulary of feelings for tests that need
// no database.
func vocabulary() []store.Feeling {
	return []store.Feeling{
		{ID: "f-anxious", Name: "anxious", Valence: -1}, {ID: "f-calm", Name: "calm", Valence: 1},
		{ID: "f-proud", Name: "proud", Valence: 1}, {ID: "f-sad", Name: "sad", Valence: -1},
		{ID: "f-tired", Name: "tired", Valence: -1}, {ID: "f-happy", Name: "happy", Valence: 1},
	}
}

func feelingsByName(list []store.Feeling) map[string]store.Feeling {
	out := make(map[string]store.Feeling, len(list))
	for _, f := range list {
		out[f.Name] = f
	}
	return out
}

// situationJSON is one extracted situation with the given lists; fields
// left nil are written as empty lists.
func situationJSON(n int, fields map[string]any) string {
	s := map[string]any{"situation": n}
	for _, k := range []string{"feelings", "triggers", "good_behaviours", "bad_behaviours", "persons", "locations", "activities"} {
		s[k] = []string{}
	}
	for k, v := range fields {
		if v == nil {
			delete(s, k)
			continue
		}
		s[k] = v
	}
	b, _ := json.Marshal(s)
	return string(b)
}

func names(n int, format func(i int) string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = format(i)
	}
	return out
}

// TestAnswerBounds holds each answer to every bound its schema states: one
// answer just inside each bound is accepted, one just outside is unusable.
func TestAnswerBounds(t *testing.T) {
	t.Parallel()
	feelings := vocabulary()
	extract := func(content string) error {
		_, err := acceptExtract(content, extractSchema(feelings), 2, feelingsByName(feelings), known{})
		return err
	}
	sentences := splitSentences("I woke late. The train was late. I was anxious. I ran.")
	segment := func(content string) error {
		_, err := acceptSegments(content, sentences)
		return err
	}
	translate := func(content string) error {
		var a translateAnswer
		return a.accept(content, "Acordei tarde e o comboio atrasou-se.")
	}
	r := &runner{categories: map[store.TagType][]store.Category{}}
	items := []item{{ref: "t1", kind: store.TagTrigger, name: "a late train"}}
	categorise := func(content string) error {
		_, err := r.place(content, items, map[string]offer{})
		return err
	}
	describe := func(content string) error {
		_, err := acceptDescription(content, "", nil)
		return err
	}
	assignment := func(newCategory string) string {
		b, _ := json.Marshal(map[string]any{"assignments": []any{map[string]string{"item": "t1", "category": "", "new_category": newCategory}}})
		return string(b)
	}
	description := func(text string) string {
		b, _ := json.Marshal(map[string]string{"description": text})
		return string(b)
	}
	person := func(i int) string { return "person " + string(rune('a'+i%26)) + strings.Repeat("x", i/26) }

	for _, c := range []struct {
		name    string
		accept  func(string) error
		content string
		usable  bool
	}{
		{"Extract/OK", extract, `{"situations":[` + situationJSON(1, map[string]any{"feelings": []string{"anxious"}, "persons": []string{"Anna"}}) + `]}`, true},
		{"Extract/MaxItemsNamesAtBound", extract, `{"situations":[` + situationJSON(1, map[string]any{"persons": names(6, person)}) + `]}`, true},
		{"Extract/MaxItemsNamesOver", extract, `{"situations":[` + situationJSON(1, map[string]any{"persons": names(7, person)}) + `]}`, false},
		{"Extract/MaxItemsRepeatedNameOver", extract, `{"situations":[` + situationJSON(1, map[string]any{"locations": names(7, func(int) string { return "home" })}) + `]}`, false},
		{"Extract/MaxItemsFeelingsAtBound", extract, `{"situations":[` + situationJSON(1, map[string]any{"feelings": []string{"anxious", "sad", "tired", "calm"}}) + `]}`, true},
		{"Extract/MaxItemsFeelingsOver", extract, `{"situations":[` + situationJSON(1, map[string]any{"feelings": []string{"anxious", "sad", "tired", "calm", "proud"}}) + `]}`, false},
		{"Extract/MaxLengthCountsCharacters", extract, `{"situations":[` + situationJSON(1, map[string]any{"activities": []string{strings.Repeat("é", 80)}}) + `]}`, true},
		{"Extract/MaxLengthOver", extract, `{"situations":[` + situationJSON(1, map[string]any{"activities": []string{strings.Repeat("é", 81)}}) + `]}`, false},
		{"Extract/MaxLengthSpacesCount", extract, `{"situations":[` + situationJSON(1, map[string]any{"triggers": []string{"rain" + strings.Repeat(" ", 80)}}) + `]}`, false},
		{"Extract/FeelingOutsideVocabulary", extract, `{"situations":[` + situationJSON(1, map[string]any{"feelings": []string{"ecstatic-ish"}}) + `]}`, true},
		{"Extract/FeelingInAnotherCase", extract, `{"situations":[` + situationJSON(1, map[string]any{"feelings": []string{"Anxious"}}) + `]}`, true},
		{"Extract/FeelingNotString", extract, `{"situations":[` + situationJSON(1, map[string]any{"feelings": []any{1}}) + `]}`, false},
		{"Extract/RequiredList", extract, `{"situations":[` + situationJSON(1, map[string]any{"persons": nil}) + `]}`, false},
		{"Extract/RequiredSituations", extract, `{}`, false},
		{"Extract/AdditionalProperties", extract, `{"situations":[` + situationJSON(1, map[string]any{"mood": []string{"meh"}}) + `]}`, false},
		{"Extract/Minimum", extract, `{"situations":[` + situationJSON(0, nil) + `]}`, false},
		{"Extract/SituationThatDoesNotExist", extract, `{"situations":[` + situationJSON(3, nil) + `]}`, false},
		{"Extract/NullList", extract, `{"situations":[` + situationJSON(1, map[string]any{"persons": json.RawMessage("null")}) + `]}`, false},
		{"Segment/OK", segment, `{"situations":[{"first":1,"last":2},{"first":4,"last":4}]}`, true},
		{"Segment/Minimum", segment, `{"situations":[{"first":0,"last":2}]}`, false},
		{"Segment/Integer", segment, `{"situations":[{"first":1.5,"last":2}]}`, false},
		{"Segment/Type", segment, `{"situations":[{"first":"1","last":2}]}`, false},
		{"Segment/Required", segment, `{"situations":[{"first":1}]}`, false},
		{"Segment/RequiredSituations", segment, `{}`, false},
		{"Segment/SentenceThatDoesNotExist", segment, `{"situations":[{"first":1,"last":5}]}`, false},
		{"Segment/TwoValues", segment, `{"situations":[]} {"situations":[]}`, false},
		{"Translate/OK", translate, `{"language":"pt","parts":[{"text":"I woke late and the train was late.","kind":"situation"}]}`, true},
		{"Translate/Required", translate, `{"parts":[{"text":"I woke late and the train was late.","kind":"situation"}]}`, false},
		{"Translate/Kind", translate, `{"language":"pt","parts":[{"text":"I woke late and the train was late.","kind":"event"}]}`, false},
		{"Translate/AdditionalProperties", translate, `{"language":"pt","parts":[{"text":"I woke late and the train was late.","kind":"other"}],"note":"x"}`, false},
		{"Categorise/OK", categorise, assignment("late trains"), true},
		{"Categorise/MaxLengthAtBound", categorise, assignment(strings.Repeat("ç", 60)), true},
		{"Categorise/MaxLengthOver", categorise, assignment(strings.Repeat("ç", 61)), false},
		{"Categorise/Required", categorise, `{"assignments":[{"item":"t1","new_category":"late trains"}]}`, false},
		{"Categorise/UnknownItem", categorise, `{"assignments":[{"item":"t9","category":"","new_category":"late trains"}]}`, false},
		{"Describe/OK", describe, description("You feel anxious when the train is late."), true},
		{"Describe/MaxLengthAtBound", describe, description(strings.Repeat("ü", 699) + "."), true},
		{"Describe/MaxLengthOver", describe, description(strings.Repeat("ü", 700) + "."), false},
		{"Describe/MaxLengthSpacesCount", describe, description(strings.Repeat(" ", 700) + "You rest."), false},
		{"Describe/Required", describe, `{}`, false},
		{"Describe/PatternStraightQuotes", describe, description(`You call it "fine".`), false},
		{"Describe/PatternCurlyQuotes", describe, description("You call it “fine”."), false},
		{"Describe/PatternGuillemets", describe, description("Tu dis «ça va»."), false},
		{"Describe/ApostrophesAllowed", describe, description("You’re tired and it's late when it comes."), true},
		{"Describe/Advice", describe, description("You feel anxious. You should rest."), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.accept(c.content)
			if c.usable {
				if err != nil {
					t.Fatalf("refused an answer within every bound: %v", err)
				}
				return
			}
			var u *unusable
			if !errors.As(err, &u) {
				t.Fatalf("got %v, want unusable output", err)
			}
		})
	}
}

// TestExtract3000Names is the answer that was once stored: one situation
// with 3,000 names. It is unusable, and says why.
func TestExtract3000Names(t *testing.T) {
	t.Parallel()
	feelings := vocabulary()
	content := `{"situations":[` + situationJSON(1, map[string]any{"persons": names(3000, func(i int) string { return "person " + strings.Repeat("i", i%50) })}) + `]}`
	_, err := acceptExtract(content, extractSchema(feelings), 1, feelingsByName(feelings), known{})
	if err == nil || !strings.Contains(err.Error(), "3000 items, at most 6") {
		t.Fatalf("got %v, want unusable output over maxItems", err)
	}
}

// TestSchemaKeywords guards the link between what is sent and what is
// checked: every schema the pipeline sends parses, and a schema with a
// keyword the checker does not enforce is refused rather than half-checked.
func TestSchemaKeywords(t *testing.T) {
	t.Parallel()
	for name, raw := range map[string]json.RawMessage{
		"translate": translateSchema, "segment": segmentSchema, "extract": extractSchema(vocabulary()), "segment_extract": readSchema(vocabulary()),
		"categorise": categoriseSchema, "describe": describeSchema,
	} {
		if _, err := parseSchema(raw); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	for _, raw := range []string{
		`{"type":"string","pattern":"^(?=a)"}`,
		`{"type":"integer","pattern":"^1$"}`,
		`{"type":"array","items":{"type":"string"},"uniqueItems":true}`,
		`{"type":"number","maximum":3}`,
		`{"type":"string","maxItems":3}`,
		`{"type":"object","properties":{"a":{"type":"string"}},"required":["b"]}`,
		`{"type":"array"}`,
	} {
		if _, err := parseSchema(json.RawMessage(raw)); err == nil {
			t.Errorf("%s parsed; want it refused", raw)
		}
	}
}

// TestTranslateLanguage keeps only a two-letter ISO 639-1 code from the
// model: "é" is two bytes, not a language.
func TestTranslateLanguage(t *testing.T) {
	t.Parallel()
	for given, want := range map[string]string{"PT": "pt", " de ": "de", "é": "", "p1": "", "por": "", "": ""} {
		var a translateAnswer
		content, _ := json.Marshal(map[string]any{"language": given, "parts": []map[string]string{{"text": "I woke late.", "kind": "situation"}}})
		if err := a.accept(string(content), "Acordei tarde."); err != nil {
			t.Fatalf("%q: %v", given, err)
		}
		if a.Language != want {
			t.Errorf("language %q kept as %q, want %q", given, a.Language, want)
		}
	}
}

// A string's pattern is checked where the schema states it, and an answer
// that does not match is unusable and says which pattern.
func TestSchemaPattern(t *testing.T) {
	t.Parallel()
	s := mustParseSchema(json.RawMessage(`{"type":"object","properties":{"code":{"type":"string","pattern":"^[a-z]{2}$"}},"required":["code"]}`))
	for content, usable := range map[string]bool{`{"code":"pt"}`: true, `{"code":"PT"}`: false, `{"code":"por"}`: false, `{"code":""}`: false} {
		err := s.checkAnswer(content)
		if usable != (err == nil) {
			t.Errorf("%s: %v, want usable %v", content, err, usable)
		}
		if err != nil && !strings.Contains(err.Error(), "does not match the pattern ^[a-z]{2}$") {
			t.Errorf("%s: %v does not say which pattern", content, err)
		}
	}
}
