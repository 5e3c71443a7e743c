package importer

import (
	"fmt"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// nonSpace is s without its whitespace.
func nonSpace(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}

// checkParts checks that parts are trimmed, within max and hold every
// non-space character of text in order.
func checkParts(t *testing.T, text string, max int, parts []string) {
	t.Helper()
	for i, p := range parts {
		if n := utf8.RuneCountInString(p); n == 0 || n > max {
			t.Errorf("part %d has %d runes, want 1 to %d", i+1, n, max)
		}
		if p != strings.TrimSpace(p) {
			t.Errorf("part %d is not trimmed: %q", i+1, p)
		}
	}
	if got, want := nonSpace(strings.Join(parts, "")), nonSpace(text); got != want {
		t.Errorf("the parts hold %q, want %q", got, want)
	}
}

func TestSplitText(t *testing.T) {
	t.Parallel()
	para := func(n int, word string) string { return strings.TrimSpace(strings.Repeat(word+" ", n)) }
	for _, c := range []struct {
		name string
		text string
		max  int
		want []string // nil: only check the rules
	}{
		{"Short", "Fits.", 10, []string{"Fits."}},
		{"Exact", "0123456789", 10, []string{"0123456789"}},
		{"Paragraphs", "First para.\n\nSecond para.\n \nThird.", 25, []string{"First para.\n\nSecond para.", "Third."}},
		{"Lines", "line one\nline two\nline three", 18, []string{"line one\nline two", "line three"}},
		{"Sentences", `One. "Two!" Three? Four.`, 13, []string{"One. \"Two!\"", "Three? Four."}},
		{"CJK", "今天很累。明天早点睡。", 6, []string{"今天很累。", "明天早点睡。"}},
		{"Words", "alpha beta gamma delta", 11, []string{"alpha beta", "gamma delta"}},
		{"Hard", "abcdefghij", 4, []string{"abcd", "efgh", "ij"}},
		{"HardRunes", "ééééé🙂🙂", 3, []string{"ééé", "éé🙂", "🙂"}},
		{"Decimals", "Pi is 3.14159 and e is 2.71828.", 20, []string{"Pi is 3.14159 and e", "is 2.71828."}},
		{"Long", para(300, "morning") + "\n\n" + para(40, "Walked.") + "\n" + para(2000, "x") + "\n\n" + strings.Repeat("y", 2500), 1000, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			parts := splitText(c.text, c.max)
			checkParts(t, c.text, c.max, parts)
			if c.want != nil && fmt.Sprintf("%q", parts) != fmt.Sprintf("%q", c.want) {
				t.Errorf("splitText = %q, want %q", parts, c.want)
			}
		})
	}
}

func TestReadLongEntry(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&b, "Paragraph %d. It was a long day, and I wrote about all of it.\n\n", i)
	}
	text := strings.TrimSpace(b.String())
	zip := makeZip(t,
		zipFile{"2024-01-05 08.00.md", text},
		zipFile{"2024-01-05 07.00.md", "Before the long one."},
		zipFile{"2024-01-05T0800 later.md", "Same minute, later file."},
	)
	res, err := Read("long.zip", zip, Options{MaxText: 200})
	if err != nil {
		t.Fatal(err)
	}
	var parts []string
	for i, e := range res.Entries[1 : len(res.Entries)-1] {
		parts = append(parts, e.Text)
		if want := fmt.Sprintf("2024-01-05 08.00.md (part %d of %d)", i+1, len(res.Entries)-2); e.Source != want {
			t.Errorf("Source = %q, want %q", e.Source, want)
		}
		if !e.OccurredAt.Equal(utc("2024-01-05T08:00:00Z")) {
			t.Errorf("part %d at %v, want the entry's time", i+1, e.OccurredAt)
		}
	}
	checkParts(t, text, 200, parts)
	if got, want := len(parts), 10; got != want {
		t.Errorf("%d parts, want %d (three paragraphs of 63 runes each)", got, want)
	}
	if got, want := res.Entries[0].Source, "2024-01-05 07.00.md"; got != want {
		t.Errorf("first entry from %q, want %q", got, want)
	}
	if got, want := res.Entries[len(res.Entries)-1].Source, "2024-01-05T0800 later.md"; got != want {
		t.Errorf("last entry from %q, want %q", got, want)
	}
}
