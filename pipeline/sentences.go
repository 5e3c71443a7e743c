package pipeline

import (
	"unicode"
	"unicode/utf8"
)

// span is a byte range [Start, End) of a text.
type span struct{ Start, End int }

// splitSentences cuts text into sentences and returns their byte ranges,
// trimmed of surrounding space. A sentence ends after . ! ? or … (and any
// closing quotes or brackets) followed by space, or at a line break. The
// model only ever names sentence numbers; the text is cut here, so a
// segment is a verbatim slice of the text by construction.
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
				flush(j)
				i = j
			}
		}
	}
	flush(len(text))
	return out
}
