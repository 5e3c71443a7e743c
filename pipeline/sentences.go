package pipeline

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// span is a byte range [Start, End) of a text.
type span struct{ Start, End int }

// splitSentences cuts text into sentences and returns their byte ranges,
// trimmed of surrounding space. A sentence ends after . ! ? or … (and any
// closing quotes or brackets) followed by space, or at a line break, unless
// the stop belongs to the sentence (see continues). The model only ever
// names sentence numbers; the text is cut here, so a segment is a verbatim
// slice of the text by construction.
func splitSentences(text string) []span {
	var out []span
	start := -1
	flush := func(end int) {
		if start < 0 {
			return
		}
		for end > start {
			r, size := utf8.DecodeLastRuneInString(text[:end])
			if !unicode.IsSpace(r) {
				break
			}
			end -= size
		}
		if end > start {
			out = append(out, span{start, end})
		}
		start = -1
	}
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case r == '\n':
			flush(i)
		case start < 0 && !unicode.IsSpace(r):
			start = i
		}
		stop := i
		i += size
		if start >= 0 && (r == '.' || r == '!' || r == '?' || r == '…') {
			// Take closing punctuation with the sentence, then end it if a
			// space (or the end of the text) follows.
			j := i
			for j < len(text) {
				c, n := utf8.DecodeRuneInString(text[j:])
				if !(c == '.' || c == '!' || c == '?' || c == '"' || c == '\'' || c == ')' || c == '”' || c == '’' || c == '…') {
					break
				}
				j += n
			}
			if next, _ := utf8.DecodeRuneInString(text[j:]); j == len(text) || unicode.IsSpace(next) {
				if !continues(text, start, stop, j) {
					flush(j)
				}
				i = j
			}
		}
	}
	flush(len(text))
	return out
}

// Abbreviations whose full stop never ends a sentence, and those that end
// one unless the next word is in lower case. Keys are in lower case.
var (
	abbreviations     = map[string]bool{"dr.": true, "mr.": true, "mrs.": true, "ms.": true, "prof.": true, "st.": true, "e.g.": true, "i.e.": true, "z.b.": true, "vs.": true}
	abbreviationsLast = map[string]bool{"etc.": true, "usw.": true, "a.m.": true, "p.m.": true}
)

// continues reports whether the stop run text[stop:end], found in the
// sentence that begins at start and followed by space, is not the end of
// that sentence: the full stop of an abbreviation ("Dr. Yilmaz", "e.g.",
// "etc." before a lower-case word, "No." before a number), of an initial
// ("J. K. Rowling"; a capital letter alone before another capital, so
// "Plan B. Then" stays one sentence too, the smaller harm), of a list
// number at the start of a line ("1. Bought milk"), an ellipsis before a
// lower-case word ("I thought... maybe not"), or a quoted question or
// exclamation before one ("she asked "why?" and left"); "a.m." and "p.m."
// end a sentence only before a word that is not in lower case.
func continues(text string, start, stop, end int) bool {
	next := nextRune(text, end)
	run := text[stop:end]
	if strings.Trim(run, ".…") == "" && (strings.Contains(run, "…") || len(run) >= 3) {
		return unicode.IsLower(next)
	}
	// A quoted question or exclamation inside a sentence: `she asked
	// "why now?" and left`.
	if strings.ContainsAny(run, "?!") && strings.ContainsAny(run, "\"'”’)") {
		return unicode.IsLower(next)
	}
	if run != "." {
		return false
	}
	// The word the full stop closes, its inner full stops included.
	w := stop
	for w > start {
		r, size := utf8.DecodeLastRuneInString(text[:w])
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '.') {
			break
		}
		w -= size
	}
	word := text[w:end]
	lower := strings.ToLower(word)
	first, _ := utf8.DecodeRuneInString(word)
	switch {
	case abbreviations[lower]:
		return true
	case abbreviationsLast[lower]:
		return unicode.IsLower(next)
	case lower == "no.":
		return unicode.IsDigit(next)
	case utf8.RuneCountInString(word) == 2 && unicode.IsUpper(first) && first != 'I':
		return unicode.IsUpper(next)
	case len(word) >= 2 && len(word) <= 4 && strings.Trim(word[:len(word)-1], "0123456789") == "":
		return w == start && lineStart(text, w)
	}
	return false
}

// nextRune is the first rune at or after i that is not space, or 0 when a
// line break or the end of the text comes first.
func nextRune(text string, i int) rune {
	for i < len(text) {
		r, size := utf8.DecodeRuneInString(text[i:])
		if r == '\n' {
			return 0
		}
		if !unicode.IsSpace(r) {
			return r
		}
		i += size
	}
	return 0
}

// lineStart reports whether only space stands between the start of the
// line and byte i.
func lineStart(text string, i int) bool {
	line := text[:i]
	if k := strings.LastIndexByte(line, '\n'); k >= 0 {
		line = line[k+1:]
	}
	return strings.TrimSpace(line) == ""
}
