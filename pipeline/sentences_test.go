package pipeline

import (
	"reflect"
	"testing"
)

func TestSplitSentences(t *testing.T) {
	for _, c := range []struct {
		name, text string
		want       []string
	}{
		{"Simple", "I woke late. Then I ran!  Was it worth it?", []string{"I woke late.", "Then I ran!", "Was it worth it?"}},
		{"LineBreaks", "Monday\n\nboss shouted at me\nI ate crisps", []string{"Monday", "boss shouted at me", "I ate crisps"}},
		{"Decimals", "It cost 3.50 today. Fine.", []string{"It cost 3.50 today.", "Fine."}},
		{"Quotes", `She said "stop." I left.`, []string{`She said "stop."`, "I left."}},
		{"Ellipsis", "Well… I don't know... maybe.", []string{"Well…", "I don't know...", "maybe."}},
		{"NoFinalStop", "  just tired  ", []string{"just tired"}},
		{"Empty", " \n ", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, s := range splitSentences(c.text) {
				got = append(got, c.text[s.Start:s.End])
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("got %q, want %q", got, c.want)
			}
		})
	}
}

func TestDetectLanguage(t *testing.T) {
	for _, c := range []struct {
		text, want string
	}{
		{"Mum called again about Christmas and I snapped at her, then felt guilty all evening.", "en"},
		{"I felt anxious before the meeting.", "en"},
		{"Bad day at work.", "en"},
		{"Heute war ein guter Tag, ich bin joggen gegangen und habe mich danach sehr ruhig gefühlt.", "de"},
		{"今日は仕事で疲れた。", "ja"},
	} {
		if got, _ := detectLanguage(c.text); got != c.want {
			t.Errorf("detectLanguage(%q) = %q, want %q", c.text, got, c.want)
		}
	}
	if got, _ := detectLanguage("Hoy me siento triste porque mi jefe me gritó."); got == "en" {
		t.Errorf("a Spanish sentence was taken for English")
	}
}
