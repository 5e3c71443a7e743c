package pipeline

import (
	"strings"
	"unicode"

	"github.com/abadojack/whatlanggo"
)

// englishWords are common English function words. Trigram detection is
// unsure of short entries ("Bad day." reads as Somali to it), so a short
// Latin-script entry counts as English when enough of its words are these.
var englishWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`i me my mine we us our you your he him his she her it its they them their
		a an the and or but so because if then than that this these those there here
		is am are was were be been being have has had do did does done not no
		to of in on at by for with about from into over after before again
		what when where who why how all some any very just too also really
		felt feel feeling today yesterday got went day night work home`) {
		englishWords[w] = true
	}
}

// detectLanguage guesses the language of text locally, so the model is
// asked to translate only text that is not English. It returns an ISO
// 639-1 code ("en" for English) and whether the guess is sure.
func detectLanguage(text string) (code string, sure bool) {
	info := whatlanggo.Detect(text)
	if info.Lang == whatlanggo.Eng {
		return "en", true
	}
	if info.Script != nil && info.Script != unicode.Latin {
		return info.Lang.Iso6391(), true
	}
	if info.IsReliable() {
		return info.Lang.Iso6391(), true
	}
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' })
	if len(words) == 0 {
		return "en", false
	}
	hits := 0
	for _, w := range words {
		if englishWords[w] {
			hits++
		}
	}
	if float64(hits)/float64(len(words)) >= 0.25 {
		return "en", true
	}
	return info.Lang.Iso6391(), false
}
