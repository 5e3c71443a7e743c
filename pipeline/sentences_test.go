package pipeline

import (
	"reflect"
	"testing"
)

func TestSplitSentences(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, text string
		want       []string
	}{
		{"Simple", "I woke late. Then I ran!  Was it worth it?", []string{"I woke late.", "Then I ran!", "Was it worth it?"}},
		{"LineBreaks", "Monday\n\nboss shouted at me\nI ate crisps", []string{"Monday", "boss shouted at me", "I ate crisps"}},
		{"Decimals", "It cost 3.50 today. Fine.", []string{"It cost 3.50 today.", "Fine."}},
		{"Quotes", `She said "stop." I left.`, []string{`She said "stop."`, "I left."}},
		{"Times", "I woke at 6 a.m. and ran. Home at 11 P.M. Then bed.", []string{"I woke at 6 a.m. and ran.", "Home at 11 P.M.", "Then bed."}},
		{"QuotedQuestion", `She asked "why now?" and I froze. "Why?" Nobody knew.`, []string{`She asked "why now?" and I froze.`, `"Why?"`, "Nobody knew."}},
		{"EllipsisBeforeCapital", "Well… I don't know. Maybe.", []string{"Well…", "I don't know.", "Maybe."}},
		{"EllipsisInsideSentence", "I thought... maybe not. Then… no.", []string{"I thought... maybe not.", "Then… no."}},
		{"EllipsisAtLineEnd", "I thought...\nmaybe not", []string{"I thought...", "maybe not"}},
		{"Titles", "Dr. Yilmaz saw me. Mr. and Mrs. Lee came, Ms. Ruiz and Prof. Okafor too. We met at St. Anne's.",
			[]string{"Dr. Yilmaz saw me.", "Mr. and Mrs. Lee came, Ms. Ruiz and Prof. Okafor too.", "We met at St. Anne's."}},
		{"ForExample", "Small things, e.g. Anna's call, i.e. nothing. Fine.", []string{"Small things, e.g. Anna's call, i.e. nothing.", "Fine."}},
		{"GermanAbbreviations", "Kleinigkeiten, z.B. Anrufe usw. und so. Gut.", []string{"Kleinigkeiten, z.B. Anrufe usw. und so.", "Gut."}},
		{"EtceteraBeforeLowerCase", "Milk, eggs etc. and bread. I paid.", []string{"Milk, eggs etc. and bread.", "I paid."}},
		{"EtceteraEndsSentence", "Milk, eggs etc. Then I paid.", []string{"Milk, eggs etc.", "Then I paid."}},
		{"Versus", "Me vs. Anna again. Sigh.", []string{"Me vs. Anna again.", "Sigh."}},
		{"NumberAbbreviation", "I was No. 3 in the queue. No. Not again.", []string{"I was No. 3 in the queue.", "No.", "Not again."}},
		{"Initials", "I read J. K. Rowling all night. I slept at 3.", []string{"I read J. K. Rowling all night.", "I slept at 3."}},
		{"PronounIsNoInitial", "Neither did I. Then we left.", []string{"Neither did I.", "Then we left."}},
		{"DecimalInSentence", "I ran 3.5 km. Then 4.25 more.", []string{"I ran 3.5 km.", "Then 4.25 more."}},
		{"NumberedList", "Today:\n1. Bought milk. It was sour.\n2. Called Mum\n10. Slept", []string{"Today:", "1. Bought milk.", "It was sour.", "2. Called Mum", "10. Slept"}},
		{"NumberMidLine", "I counted to 3. Then I jumped.", []string{"I counted to 3.", "Then I jumped."}},
		{"DashList", "- bought milk\n- called Mum. She was out.\n-   slept", []string{"- bought milk", "- called Mum.", "She was out.", "-   slept"}},
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
	t.Parallel()
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
