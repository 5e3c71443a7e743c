package importer

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// splitText cuts a trimmed text longer than limit runes into trimmed parts
// of at most limit runes. Each cut falls at the last paragraph break (a blank
// line) that leaves a part within the limit, else the last line break, else
// right after the last sentence end, else the last space, else at limit
// runes. Only whitespace is lost at a cut.
func splitText(text string, limit int) []string {
	var parts []string
	for longerThan(text, limit) {
		cut := cutPoint(text, limit)
		parts = append(parts, strings.TrimSpace(text[:cut]))
		text = strings.TrimSpace(text[cut:])
	}
	if text != "" {
		parts = append(parts, text)
	}
	return parts
}

// cutPoint is the byte offset at which to cut text, which is longer than
// limit runes and starts with a non-space: always above 0 and at most the
// offset of rune limit, so the part before it is not empty and within limit.
func cutPoint(text string, limit int) int {
	end := 0 // offset of rune limit
	for n := 0; n < limit; n++ {
		_, size := utf8.DecodeRuneInString(text[end:])
		end += size
	}
	// A break right at rune limit still leaves a part within the limit.
	_, size := utf8.DecodeRuneInString(text[end:])
	window := text[:end+size]
	if i := lastParagraphBreak(text, end); i > 0 {
		return i
	}
	if i := strings.LastIndexByte(window, '\n'); i > 0 {
		return i
	}
	if i := lastSentenceEnd(text, end); i > 0 {
		return i
	}
	if i := strings.LastIndexFunc(window, unicode.IsSpace); i > 0 {
		return i
	}
	return end
}

// lastParagraphBreak is the offset, at most end, of the last line break in
// text that is followed by a blank line, or -1.
func lastParagraphBreak(text string, end int) int {
	for k := strings.LastIndexByte(text[:end+1], '\n'); k > 0; k = strings.LastIndexByte(text[:k], '\n') {
		if strings.HasPrefix(strings.TrimLeft(text[k+1:], " \t"), "\n") {
			return k
		}
	}
	return -1
}

// lastSentenceEnd is the offset just after the last sentence end before
// offset end of text: a terminal (".", "!", "?", "…"), any closing quotes
// and brackets, followed by a space; or a CJK full stop, which needs none.
// It returns -1 when there is none.
func lastSentenceEnd(text string, end int) int {
	best := -1
	for i, r := range text[:end] {
		if !isTerminal(r) {
			continue
		}
		j := i + utf8.RuneLen(r)
		if strings.ContainsRune("！．？｡。", r) {
			best = j
			continue
		}
		for j < end && strings.IndexByte(")]'\"", text[j]) >= 0 {
			j++
		}
		for _, q := range []string{"\u2019", "\u201d"} {
			if strings.HasPrefix(text[j:end], q) {
				j += len(q)
			}
		}
		if next, _ := utf8.DecodeRuneInString(text[j:]); j <= end && j < len(text) && unicode.IsSpace(next) {
			best = j
		}
	}
	return best
}

// longerThan reports whether s holds more than n runes, looking at no more
// than n+1 of them: counting the whole of a long text at every cut would
// make splitting it quadratic.
func longerThan(s string, n int) bool {
	if len(s) <= n {
		return false
	}
	for range s {
		if n--; n < 0 {
			return true
		}
	}
	return false
}
