package importer

import (
	"path"
	"strings"
	"time"
	"unicode/utf8"
)

// MarkdownTranslationHeading opens the translation that Recur's Markdown
// export writes after an entry's text, in a file whose front matter says
// "translated: true". Reading such a file back keeps the text only.
const MarkdownTranslationHeading = "## Translation (English, by Recur)"

// readMarkdown reads one Markdown or text file as one entry, dated by its
// front matter or else by its path.
func (r *reader) readMarkdown(f file) error {
	data, err := r.readFile(f, MaxMarkdownBytes, "a Markdown or text file")
	if err != nil {
		return err
	}
	return r.readMarkdownText(f.path, data)
}

// readMarkdownText reads the text of a Markdown file.
func (r *reader) readMarkdownText(file string, data []byte) error {
	if !utf8.Valid(data) {
		return errorf(file, "the file is not UTF-8 text; save it as UTF-8 and upload it again.")
	}
	meta, body := frontMatter(normalizeNewlines(string(data)))
	if meta["translated"] == "true" {
		if i := strings.LastIndex(body, "\n"+MarkdownTranslationHeading+"\n"); i >= 0 {
			body = body[:i]
		}
	}
	body = strings.TrimSpace(body)
	if body == "" {
		r.res.Skipped++
		return nil
	}
	var at time.Time
	if v := meta["date"]; v != "" {
		t, ok := parseFrontMatterDate(v, r.loc)
		if !ok {
			return errorf(file, "the front matter's date %q is not a date; write it like 2024-01-05 or 2024-01-05 08:30.", v)
		}
		at = t
	} else if t, ok := pathDate(file, r.loc); ok {
		at = t
	} else {
		return errorf(file, "no date: name the file like 2024-01-05.md or add a `date:` line to its front matter.")
	}
	// The title opens the text as its heading, so that the entry, shown
	// as Markdown, keeps it as its title rather than as a first line that
	// Markdown may read as something else ("1. May" a list, say).
	if title := meta["title"]; title != "" && !startsWithTitle(body, title) {
		body = "# " + title + "\n\n" + body
	}
	return r.add(file, at, body)
}

// frontMatter splits a leading block between "---" lines off text and
// returns its top-level "key: value" lines (keys lower-cased, values
// unquoted) and the rest. Text without a closed block, or whose block
// holds a line that is no "key: value" (text between two rules), is all
// body.
func frontMatter(text string) (map[string]string, string) {
	first, rest, ok := strings.Cut(text, "\n")
	if !ok || strings.TrimRight(first, " \t") != "---" {
		return nil, text
	}
	meta := map[string]string{}
	for rest != "" {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		if trimmed := strings.TrimRight(line, " \t"); trimmed == "---" || trimmed == "..." {
			return meta, rest
		}
		if line == "" || line[0] == ' ' || line[0] == '\t' || line[0] == '#' || line[0] == '-' {
			continue // nested values, list items and comments
		}
		key, value, ok := strings.Cut(line, ":")
		if !ok {
			return nil, text
		}
		key = strings.ToLower(strings.TrimSpace(key))
		if _, seen := meta[key]; !seen {
			meta[key] = yamlScalar(value)
		}
	}
	return nil, text
}

// yamlScalar reads a one-line YAML value: quotes are taken off, and an
// unquoted value loses a trailing " # comment".
func yamlScalar(v string) string {
	v = strings.TrimSpace(v)
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') {
		if end := strings.IndexByte(v[1:], v[0]); end >= 0 {
			return strings.TrimSpace(v[1 : end+1])
		}
	}
	if i := strings.Index(v, " #"); i >= 0 {
		v = v[:i]
	}
	return strings.TrimSpace(v)
}

// frontMatterLayouts are the dates a front matter "date:" may hold, with a
// zone or without one (then local). Fractional seconds are accepted after
// the seconds of any of them.
var frontMatterLayouts = []string{
	"2006-01-02",
	"2006-01-02T15:04:05Z07:00",
	"2006-01-02T15:04Z07:00",
	"2006-01-02 15:04:05Z07:00",
	"2006-01-02 15:04:05 Z07:00",
	"2006-01-02 15:04:05 -0700",
	"2006-01-02 15:04Z07:00",
	"2006-01-02 15:04 Z07:00",
	"2006-01-02 15:04 -0700",
	"2006-01-02T15:04:05",
	"2006-01-02T15:04",
	"2006-01-02 15:04:05",
	"2006-01-02 15:04",
}

// parseFrontMatterDate reads the value of a front matter "date:". A date
// without a time is noon, so that no time zone moves it to another day.
func parseFrontMatterDate(v string, loc *time.Location) (time.Time, bool) {
	for _, layout := range frontMatterLayouts {
		t, err := time.ParseInLocation(layout, v, loc)
		if err != nil {
			continue
		}
		if len(layout) == len("2006-01-02") {
			t = time.Date(t.Year(), t.Month(), t.Day(), 12, 0, 0, 0, loc)
		}
		return t, true
	}
	return time.Time{}, false
}

// startsWithTitle reports whether body already opens with title, as a
// heading or as its first line.
func startsWithTitle(body, title string) bool {
	first, _, _ := strings.Cut(body, "\n")
	first = strings.TrimSpace(strings.TrimLeft(first, "#"))
	return strings.EqualFold(first, strings.TrimSpace(title))
}

// pathDate finds the date of a file in its path: the first date in the file
// name (2024-01-05, 2024_01_05 or 20240105, maybe followed by a time), else
// a year/month/day run of folders (2024/01/05.md, 2024/01/05/notes.md),
// else the first date in the nearest folder name holding one.
func pathDate(file string, loc *time.Location) (time.Time, bool) {
	dir, name := path.Split(file)
	stem := strings.TrimSuffix(name, path.Ext(name))
	if t, ok := nameDate(stem, loc); ok {
		return t, true
	}
	parts := append(strings.Split(strings.Trim(dir, "/"), "/"), stem)
	for i := len(parts) - 3; i >= 0; i-- {
		if t, ok := folderDate(parts[i], parts[i+1], parts[i+2], loc); ok {
			return t, true
		}
	}
	for i := len(parts) - 2; i >= 0; i-- {
		if t, ok := nameDate(parts[i], loc); ok {
			return t, true
		}
	}
	return time.Time{}, false
}

// nameDate finds the first date in a name, with the time right after it
// when there is one.
func nameDate(s string, loc *time.Location) (time.Time, bool) {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) || (i > 0 && isDigit(s[i-1])) {
			continue
		}
		run := digits(s[i:])
		var y, m, d int
		var rest string
		switch {
		case run == 4 && len(s) >= i+10 && (s[i+4] == '-' || s[i+4] == '_') && s[i+7] == s[i+4] &&
			digits(s[i+5:]) == 2 && digits(s[i+8:]) == 2:
			y, m, d = atoi(s[i:i+4]), atoi(s[i+5:i+7]), atoi(s[i+8:i+10])
			rest = s[i+10:]
		case run == 8:
			y, m, d = atoi(s[i:i+4]), atoi(s[i+4:i+6]), atoi(s[i+6:i+8])
			rest = s[i+8:]
		case run == 12 || run == 14: // 202401050830: a date and a time
			y, m, d = atoi(s[i:i+4]), atoi(s[i+4:i+6]), atoi(s[i+6:i+8])
			rest = "T" + s[i+8:]
		default:
			continue
		}
		if !validDate(y, m, d) {
			continue
		}
		hour, minute, sec, ok := clockAfter(rest)
		if !ok {
			if run > 8 {
				continue // a long number, not a date and a time
			}
			hour = 12
		}
		return time.Date(y, time.Month(m), d, hour, minute, sec, 0, loc), true
	}
	return time.Time{}, false
}

// folderDate reads a year, a month and a day from three path parts
// ("2024", "01", "05" or "05 Friday"), with a time after the day when
// there is one.
func folderDate(year, month, day string, loc *time.Location) (time.Time, bool) {
	if len(year) != 4 || digits(year) != 4 || digits(month) != len(month) || len(month) == 0 || len(month) > 2 {
		return time.Time{}, false
	}
	n := digits(day)
	if n == 0 || n > 2 {
		return time.Time{}, false
	}
	y, m, d := atoi(year), atoi(month), atoi(day[:n])
	if !validDate(y, m, d) {
		return time.Time{}, false
	}
	hour, minute, sec, ok := clockAfter(day[n:])
	if !ok {
		hour = 12
	}
	return time.Date(y, time.Month(m), d, hour, minute, sec, 0, loc), true
}

// clockAfter reads a time of day that follows a date in a name: a space,
// "T" or "_", then 08.30, 08-30, 08:30, 0830 or the same with seconds, and
// then the end of the name or something that does not go on with digits.
func clockAfter(s string) (hour, minute, sec int, ok bool) {
	if s == "" || !strings.ContainsRune(" T_t", rune(s[0])) {
		return 0, 0, 0, false
	}
	s = s[1:]
	var fields []int
	switch n := digits(s); {
	case n == 4 || n == 6:
		for j := 0; j < n; j += 2 {
			fields = append(fields, atoi(s[j:j+2]))
		}
		s = s[n:]
	case n == 2:
		fields = append(fields, atoi(s[:2]))
		s = s[2:]
		for len(fields) < 3 && len(s) >= 3 && strings.IndexByte(".:-", s[0]) >= 0 && digits(s[1:]) == 2 {
			fields = append(fields, atoi(s[1:3]))
			s = s[3:]
		}
	}
	// What follows must not continue the number: "2024-01-05 2024-01-06"
	// holds no time.
	if len(fields) < 2 || (s != "" && isDigit(s[0])) ||
		(len(s) >= 2 && strings.IndexByte(".:-_", s[0]) >= 0 && isDigit(s[1])) {
		return 0, 0, 0, false
	}
	fields = append(fields, 0)
	hour, minute, sec = fields[0], fields[1], fields[2]
	if hour > 23 || minute > 59 || sec > 59 {
		return 0, 0, 0, false
	}
	return hour, minute, sec, true
}

// validDate reports whether y-m-d is a real day of a year from 1900 to 2100.
func validDate(y, m, d int) bool {
	if y < 1900 || y > 2100 || m < 1 || m > 12 || d < 1 {
		return false
	}
	return d <= time.Date(y, time.Month(m)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// digits counts the ASCII digits s starts with.
func digits(s string) int {
	n := 0
	for n < len(s) && isDigit(s[n]) {
		n++
	}
	return n
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// atoi reads a short run of ASCII digits.
func atoi(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		n = n*10 + int(s[i]-'0')
	}
	return n
}
