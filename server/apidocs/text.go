package apidocs

import "strings"

// span is a run of text, shown as code when Code is set.
type span struct {
	Text string
	Code bool
}

// inline is a line of text made of spans.
type inline []span

// block is a paragraph (Lines, shown with line breaks kept) or, when Head is
// set, a table (Head and Rows).
type block struct {
	Lines []inline
	Head  []inline
	Rows  [][]inline
}

// blocks splits a description into paragraphs on blank lines. It is not a
// Markdown renderer: the only markup it reads is `code` spans and tables
// whose lines all start and end with "|" and whose second line is a
// |---|---| separator. Everything else is plain text.
func blocks(text string) []block {
	var out []block
	var para []string
	flush := func() {
		if len(para) == 0 {
			return
		}
		if b, ok := table(para); ok {
			out = append(out, b)
		} else {
			b := block{}
			for _, l := range para {
				b.Lines = append(b.Lines, spans(l))
			}
			out = append(out, b)
		}
		para = nil
	}
	for _, line := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			flush()
			continue
		}
		para = append(para, line)
	}
	flush()
	return out
}

// table reads lines as a table, if they are one.
func table(lines []string) (block, bool) {
	if len(lines) < 2 || !isSeparator(lines[1]) {
		return block{}, false
	}
	for _, l := range lines {
		if len(l) < 2 || !strings.HasPrefix(l, "|") || !strings.HasSuffix(l, "|") {
			return block{}, false
		}
	}
	b := block{Head: cells(lines[0])}
	for _, l := range lines[2:] {
		b.Rows = append(b.Rows, cells(l))
	}
	return b, true
}

// isSeparator reports whether l is a table's |---|:---:| line.
func isSeparator(l string) bool {
	return strings.Contains(l, "-") && strings.Trim(l, "|-: ") == ""
}

// cells splits a table line into its cells.
func cells(l string) []inline {
	parts := strings.Split(l[1:len(l)-1], "|")
	out := make([]inline, len(parts))
	for i, p := range parts {
		out[i] = spans(strings.TrimSpace(p))
	}
	return out
}

// spans splits a line on backticks; text between a pair is code. An
// unpaired backtick is kept as text.
func spans(line string) inline {
	parts := strings.Split(line, "`")
	if len(parts)%2 == 0 {
		last := len(parts) - 1
		parts[last-1] += "`" + parts[last]
		parts = parts[:last]
	}
	var out inline
	for i, p := range parts {
		if p != "" {
			out = append(out, span{Text: p, Code: i%2 == 1})
		}
	}
	return out
}
