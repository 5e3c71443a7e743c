package evaluate

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Span is a byte range [Start, End) of a text.
type Span struct{ Start, End int }

// abbreviations end with a full stop that does not end a sentence.
var abbreviations = map[string]bool{
	"dr": true, "mr": true, "mrs": true, "ms": true, "prof": true, "st": true, "e.g": true, "i.e": true,
	"z.b": true, "usw": true, "bzw": true, "etc": true, "vs": true, "sr": true, "sra": true, "hr": true, "fr": true,
}

// Sentences numbers a labelled entry's sentences the way its labeller
// counts them: a sentence ends at . ! ? or … (with any closing quotes or
// brackets) when a space follows and the next word does not start in lower
// case, unless the full stop closes an abbreviation (Dr., z.B.) or an
// initial. It is the labels' ruler, kept apart from the pipeline's own
// splitter so that a change to that one is measured, not followed.
func Sentences(text string) []Span {
	var out []Span
	start := 0
	for i, r := range text {
		if !strings.ContainsRune(".!?…", r) {
			continue
		}
		end := i + utf8.RuneLen(r)
		for end < len(text) && strings.ContainsRune(`.!?…"')”’»`, rune(text[end])) {
			end++
		}
		if end >= len(text) || !unicode.IsSpace(rune(text[end])) {
			continue
		}
		next := strings.TrimLeftFunc(text[end:], unicode.IsSpace)
		if first, _ := utf8.DecodeRuneInString(next); unicode.IsLower(first) {
			continue
		}
		if r == '.' && abbreviated(text[start:i]) {
			continue
		}
		if s := trimmed(text, start, end); s.End > s.Start {
			out = append(out, s)
		}
		start = end
	}
	if s := trimmed(text, start, len(text)); s.End > s.Start {
		out = append(out, s)
	}
	return out
}

// abbreviated reports whether the word before a full stop is an
// abbreviation or a single capital (an initial).
func abbreviated(before string) bool {
	word := before[strings.LastIndexFunc(before, unicode.IsSpace)+1:]
	if utf8.RuneCountInString(word) == 1 && unicode.IsUpper([]rune(word)[0]) {
		return true
	}
	return abbreviations[strings.ToLower(word)]
}

func trimmed(text string, start, end int) Span {
	for start < end && unicode.IsSpace(rune(text[start])) {
		start++
	}
	for end > start && unicode.IsSpace(rune(text[end-1])) {
		end--
	}
	return Span{start, end}
}
