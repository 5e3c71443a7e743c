package pipeline

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/recur-journal/recur/store"
)

// shorten cuts s to at most n characters, at a space when there is one,
// marking the cut with "…".
func shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	cut := string([]rune(s)[:n-1])
	if k := strings.LastIndexByte(cut, ' '); k > 0 {
		cut = cut[:k]
	}
	return strings.TrimSpace(cut) + "…"
}

// letterRuns cuts text into runs of letters (words) and the characters
// between them, in order, and calls fn for each: word says which it is.
func letterRuns(text string, fn func(run string, word bool)) {
	for i := 0; i < len(text); {
		j := i
		r, _ := utf8.DecodeRuneInString(text[i:])
		word := unicode.IsLetter(r)
		for j < len(text) {
			c, n := utf8.DecodeRuneInString(text[j:])
			if unicode.IsLetter(c) != word {
				break
			}
			j += n
		}
		fn(text[i:j], word)
		i = j
	}
}

// properWords returns the words that the texts capitalise where no
// sentence begins, by their lower-case form: the proper names ("Mika",
// "Jonas") a category name keeps.
func properWords(texts ...string) map[string]string {
	out := map[string]string{}
	for _, text := range texts {
		initial := true
		letterRuns(text, func(run string, word bool) {
			switch {
			case !word:
				initial = initial || strings.ContainsAny(run, ".!?…\n")
			default:
				if r, _ := utf8.DecodeRuneInString(run); unicode.IsUpper(r) && !initial {
					out[strings.ToLower(run)] = run
				}
				initial = false
			}
		})
	}
	return out
}

// categoryName is a new category's name: spaces collapsed, lower case but
// for the proper words, which keep their capitals.
func categoryName(raw string, proper map[string]string) string {
	var b strings.Builder
	letterRuns(strings.Join(strings.Fields(raw), " "), func(run string, word bool) {
		if p, ok := proper[strings.ToLower(run)]; ok && word {
			b.WriteString(p)
			return
		}
		b.WriteString(strings.ToLower(run))
	})
	return b.String()
}

// notNames are the words that begin a person's or place's name without
// being part of it ("the Lakes", "my Dad"), which a name's capitals never
// carry into a category name.
var notNames = map[string]bool{"the": true, "my": true, "a": true, "an": true, "our": true, "his": true, "her": true, "their": true}

// knownProperWords returns the capitalised words of the persons and places
// given (the writer's own and the entry's), by their lower-case form: a
// category name keeps their capitals even where the entry only writes them
// at the start of a sentence ("Mika cooked dinner.").
func knownProperWords(tags []store.NewTag) map[string]string {
	out := map[string]string{}
	for _, t := range tags {
		if t.Type != store.TagPerson && t.Type != store.TagLocation {
			continue
		}
		letterRuns(t.Name, func(run string, word bool) {
			if r, _ := utf8.DecodeRuneInString(run); word && unicode.IsUpper(r) && !notNames[strings.ToLower(run)] {
				out[strings.ToLower(run)] = run
			}
		})
	}
	return out
}

// excerpt is at most n characters of text around what the item names: it
// starts a third of n before the first word of name (of four letters or
// more) that text holds, so the part the item is about is never cut off,
// and each cut is at a space and marked with "…".
func excerpt(text, name string, n int) string {
	if utf8.RuneCountInString(text) <= n {
		return text
	}
	lower := strings.ToLower(text)
	at := -1
	for _, w := range strings.Fields(strings.ToLower(name)) {
		if utf8.RuneCountInString(w) < 4 {
			continue
		}
		if i := strings.Index(lower, w); i >= 0 && (at < 0 || i < at) {
			at = i
		}
	}
	runes := []rune(text)
	start := 0
	if at >= 0 {
		start = max(0, utf8.RuneCountInString(text[:at])-n/3)
	}
	start = min(start, len(runes)-(n-1))
	if start == 0 {
		return shorten(text, n)
	}
	rest := string(runes[start:])
	if k := strings.IndexByte(rest, ' '); k >= 0 {
		rest = rest[k+1:]
	}
	return "…" + shorten(rest, n-1)
}
