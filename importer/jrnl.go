package importer

import (
	"strings"
	"time"
	"unicode/utf8"
)

// jrnlEntry holds what Recur takes from an entry of `jrnl --export json`;
// the other keys (tags, starred, uuid, creator) are ignored.
type jrnlEntry struct {
	Title string  `json:"title"`
	Body  string  `json:"body"`
	Date  *string `json:"date"`
	Time  string  `json:"time"`
}

// readJRNL reads a jrnl JSON export. Its dates and times are local ones,
// read in the reader's location.
func (r *reader) readJRNL(f file) error {
	return eachEntry(r, f, func(i int, e *jrnlEntry) error {
		source := entrySource(f.path, i)
		if e.Date == nil || strings.TrimSpace(*e.Date) == "" {
			return errorf(source, "the entry has no date; export the journal again with jrnl --export json and upload it unchanged.")
		}
		day, err := time.Parse("2006-01-02", strings.TrimSpace(*e.Date))
		if err != nil {
			return errorf(source, "the date %q is not a date like 2024-01-05; correct it and upload the file again.", *e.Date)
		}
		hour, minute, sec := 12, 0, 0
		if clock := strings.TrimSpace(e.Time); clock != "" {
			t, err := time.Parse("15:04", clock)
			if err != nil {
				t, err = time.Parse("15:04:05", clock)
			}
			if err != nil {
				return errorf(source, "the time %q is not a time like 08:30; correct it and upload the file again.", e.Time)
			}
			hour, minute, sec = t.Clock()
		}
		at := time.Date(day.Year(), day.Month(), day.Day(), hour, minute, sec, 0, r.loc)
		return r.add(source, at, joinTitle(e.Title, e.Body))
	})
}

// joinTitle puts back together the text jrnl split into title and body.
// jrnl cuts at the first line break when the text has one, and otherwise
// after the first sentence (a terminal like "." "!" "?" with optional
// closing quotes and brackets, then spaces, or a CJK full stop with none),
// trimming both halves. So a body with a line break, or a title that does
// not end a sentence, was cut at a line break; otherwise it was a space,
// or nothing after a CJK full stop.
func joinTitle(title, body string) string {
	title, body = strings.TrimSpace(title), strings.TrimSpace(body)
	switch {
	case body == "":
		return title
	case title == "":
		return body
	case strings.Contains(body, "\n") || !endsSentence(title):
		return title + "\n" + body
	}
	if last, _ := utf8.DecodeLastRuneInString(title); strings.ContainsRune("！．？｡。", last) {
		return title + body
	}
	return title + " " + body
}

// endsSentence reports whether s ends with a sentence terminal, maybe
// followed by a closing quote and closing brackets.
func endsSentence(s string) bool {
	s = strings.TrimRight(s, ")]")
	s = strings.TrimRight(s, "'\"\u2019\u201d")
	last, _ := utf8.DecodeLastRuneInString(s)
	return isTerminal(last)
}

// isTerminal reports whether r ends a sentence.
func isTerminal(r rune) bool {
	return strings.ContainsRune(".!?\u2026\u203c\u203d\u2047\u2048\u2049\u22ef\ufe52\ufe57！．？｡。", r)
}
