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

// The parts of a translation are joined with the entry's own line breaks:
// a paragraph break of the original stays where its sentences line up with
// the parts', and a break the model wrote at a part's end is kept. Each
// situation stays a verbatim slice of the joined text.
func TestTranslationKeepsLineBreaks(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, original, parts, want string
	}{
		{"ParagraphOfTheOriginal", "Mi jefe criticó mi informe. Me sentí ansiosa.\n\nPor la tarde corrí. Me sentí tranquila.\nA dormir.",
			`{"text":"My boss criticised my report. I felt anxious.","kind":"situation"},{"text":"In the afternoon I ran. I felt calm.","kind":"situation"},` +
				`{"text":"Off to bed.","kind":"other"}`,
			"My boss criticised my report. I felt anxious.\n\nIn the afternoon I ran. I felt calm.\nOff to bed."},
		{"BreakTheModelWrote", "Lunes: mi jefe criticó mi informe y me sentí ansiosa.\nPor la tarde corrí y me sentí tranquila.",
			`{"text":"Monday. My boss criticised my report and I felt anxious.\n","kind":"situation"},{"text":"In the afternoon I ran and felt calm.","kind":"situation"}`,
			"Monday. My boss criticised my report and I felt anxious.\nIn the afternoon I ran and felt calm."},
		{"SentencesDoNotLineUp", "Lunes.\n\nMi jefe criticó mi informe. Me sentí ansiosa.",
			`{"text":"Monday, my boss criticised my report.","kind":"situation"},{"text":"I felt anxious.","kind":"situation"}`,
			"Monday, my boss criticised my report. I felt anxious."},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var a translateAnswer
			if err := a.accept(`{"language":"es","parts":[`+c.parts+`]}`, c.original); err != nil {
				t.Fatal(err)
			}
			if a.Translation != c.want {
				t.Errorf("translation %q, want %q", a.Translation, c.want)
			}
			for i, sp := range a.Situations {
				if got, want := a.Translation[sp.Start:sp.End], strings.TrimSpace(a.Parts[i].Text); got != want {
					t.Errorf("situation %d is %q, want the part's text %q", i+1, got, want)
				}
			}
		})
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
