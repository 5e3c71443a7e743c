package pipeline

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// FuzzSplitSentences holds the splitter to its promise: sentences are
// verbatim slices of the text, in order, none empty, none with space at
// either end or a line break inside, and together they cover every
// character of the text that is not space.
func FuzzSplitSentences(f *testing.F) {
	for _, seed := range []string{
		"I woke late. Then I ran!  Was it worth it?",
		"Monday\n\nboss shouted at me\nI ate crisps",
		"It cost 3.50 today. Fine.",
		`She said "stop." I left.`,
		"Well… I don't know... maybe.",
		"  just tired  ", " \n ", "", "?!", ".\u2028x", "a.\u00a0b", "\xff. \xfe", "“Quoted.” (Aside.) ’Tis.",
		"Dr. Yilmaz and J. K. Rowling, e.g. etc. and No. 5... maybe.", "1. Bought milk\n- item. Next", "1. ", "a. .. …", "J. ",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		spans := splitSentences(text)
		covered := make([]bool, len(text))
		prev := 0
		for i, s := range spans {
			if s.Start < prev || s.End <= s.Start || s.End > len(text) {
				t.Fatalf("sentence %d is %d-%d after %d in a text of %d bytes", i, s.Start, s.End, prev, len(text))
			}
			prev = s.End
			sentence := text[s.Start:s.End]
			first, _ := utf8.DecodeRuneInString(sentence)
			last, _ := utf8.DecodeLastRuneInString(sentence)
			if unicode.IsSpace(first) || unicode.IsSpace(last) {
				t.Fatalf("sentence %d %q has space at an end", i, sentence)
			}
			if strings.Contains(sentence, "\n") {
				t.Fatalf("sentence %d %q crosses a line break", i, sentence)
			}
			if utf8.ValidString(text) && !utf8.ValidString(sentence) {
				t.Fatalf("sentence %d %q cuts a character", i, sentence)
			}
			for j := s.Start; j < s.End; j++ {
				covered[j] = true
			}
		}
		for i := 0; i < len(text); {
			r, size := utf8.DecodeRuneInString(text[i:])
			if !covered[i] && !unicode.IsSpace(r) {
				t.Fatalf("%q at byte %d is in no sentence", r, i)
			}
			i += size
		}
	})
}
