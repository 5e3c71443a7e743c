package pipeline

import (
	"errors"
	"strings"
	"testing"
)

// A translation comes in parts; the translated text is the parts joined,
// and each situation is a verbatim slice of it, whatever the model wrote.
func TestTranslationCutIntoSituations(t *testing.T) {
	t.Parallel()
	var a translateAnswer
	content := `{"language":"de","parts":[{"text":" Monday. ","kind":"other"},` +
		`{"text":"Herr Braun complained about the noise.\nI was angry.","kind":"situation"},{"text":"","kind":"situation"},` +
		`{"text":"Then I went climbing with Lena. I was proud.","kind":"situation"},{"text":"Early to bed.","kind":"other"}]}`
	original := "Montag. Herr Braun hat sich über den Lärm beschwert.\nIch war wütend. Dann war ich mit Lena klettern. Ich war stolz. Früh ins Bett."
	if err := a.accept(content, original); err != nil {
		t.Fatal(err)
	}
	if want := "Monday. Herr Braun complained about the noise.\nI was angry. Then I went climbing with Lena. I was proud. Early to bed."; a.Translation != want {
		t.Errorf("translation %q, want %q", a.Translation, want)
	}
	var got []string
	for _, sp := range a.Situations {
		got = append(got, a.Translation[sp.Start:sp.End])
	}
	if want := []string{"Herr Braun complained about the noise.\nI was angry.", "Then I went climbing with Lena. I was proud."}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("situations %q, want %q", got, want)
	}
}

// A segment-and-extract answer names each situation by its sentences; the
// situations are cut from the sentences, and their tags read as extract's.
func TestAcceptRead(t *testing.T) {
	t.Parallel()
	feelings := vocabulary()
	text := "Hello diary. My boss criticised my plan. I was anxious. Later I ran by the river. I felt calm."
	sentences := splitSentences(text)
	schema := readSchema(feelings)
	sit := func(first, last int, feeling string) string {
		return `{"first":` + string(rune('0'+first)) + `,"last":` + string(rune('0'+last)) + `,"feelings":["` + feeling + `"],"triggers":[],` +
			`"good_behaviours":[],"bad_behaviours":[],"persons":[],"locations":[],"activities":[]}`
	}
	spans, tags, err := acceptRead(`{"situations":[`+sit(2, 3, "anxious")+`,`+sit(4, 5, "calm")+`]}`, schema, sentences, feelingsByName(feelings), known{})
	if err != nil {
		t.Fatal(err)
	}
	if len(spans) != 2 || text[spans[0].Start:spans[0].End] != "My boss criticised my plan. I was anxious." ||
		text[spans[1].Start:spans[1].End] != "Later I ran by the river. I felt calm." {
		t.Fatalf("spans %v", spans)
	}
	if len(tags) != 2 || len(tags[0]) != 1 || tags[0][0].Name != "anxious" || tags[1][0].Name != "calm" {
		t.Errorf("tags %+v", tags)
	}
	for name, content := range map[string]string{
		"Overlapping":        `{"situations":[` + sit(2, 3, "anxious") + `,` + sit(3, 5, "calm") + `]}`,
		"PastTheLast":        `{"situations":[` + sit(4, 6, "calm") + `]}`,
		"SituationNumber":    `{"situations":[{"situation":1,"feelings":[],"triggers":[],"good_behaviours":[],"bad_behaviours":[],"persons":[],"locations":[],"activities":[]}]}`,
		"WithoutItsSentence": `{"situations":[{"first":2,"feelings":[],"triggers":[],"good_behaviours":[],"bad_behaviours":[],"persons":[],"locations":[],"activities":[]}]}`,
	} {
		var u *unusable
		if _, _, err := acceptRead(content, schema, sentences, feelingsByName(feelings), known{}); !errors.As(err, &u) {
			t.Errorf("%s: got %v, want unusable output", name, err)
		}
	}
}
