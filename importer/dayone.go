package importer

import (
	"regexp"
	"strings"
	"time"
)

// dayOneEntry holds what Recur takes from an entry of a Day One JSON
// export; the other keys (tags, starred, richText, location, weather,
// photos, ...) are ignored.
type dayOneEntry struct {
	UUID         string  `json:"uuid"`
	CreationDate *string `json:"creationDate"`
	Text         string  `json:"text"`
}

// dayOneMoment matches the Markdown image Day One puts in an entry's text
// for an attachment: ![](dayone-moment://ID) for a photo and
// ![](dayone-moment:/video/ID), /audio/ or /pdfAttachment/ for the others.
var dayOneMoment = regexp.MustCompile(`!\[[^\]\n]*\]\(dayone-moment:[^)\s]*\)`)

// blankRun matches three or more line ends with nothing but spaces between.
var blankRun = regexp.MustCompile(`\n[ \t]*\n(?:[ \t]*\n)+`)

// readDayOne reads a Day One journal JSON file.
func (r *reader) readDayOne(f file) error {
	return eachEntry(r, f, func(i int, e *dayOneEntry) error {
		source := entrySource(f.path, i)
		if e.CreationDate == nil || strings.TrimSpace(*e.CreationDate) == "" {
			return errorf(source, "the entry has no creationDate; export the journal from Day One again and upload it unchanged.")
		}
		// Day One writes creationDate in UTC, like 2023-01-05T18:23:11Z;
		// the entry's timeZone only says where it was written.
		at, err := time.Parse(time.RFC3339, strings.TrimSpace(*e.CreationDate))
		if err != nil {
			return errorf(source, "the creationDate %q is not a date like 2023-01-05T18:23:11Z; export the journal from Day One again and upload it unchanged.", *e.CreationDate)
		}
		return r.add(source, at, cleanDayOne(e.Text))
	})
}

// cleanDayOne turns the Markdown of a Day One entry into its plain text:
// attachment references go, and so do the backslashes Day One puts before
// punctuation ("Done\." becomes "Done.").
func cleanDayOne(s string) string {
	s = normalizeNewlines(s)
	if t := dayOneMoment.ReplaceAllString(s, ""); t != s {
		// A photo on a line of its own leaves an empty line behind.
		s = blankRun.ReplaceAllString(t, "\n\n")
	}
	return strings.TrimSpace(unescapeMarkdown(s))
}

// unescapeMarkdown drops the backslash of every Markdown backslash escape:
// one before an ASCII punctuation character. Other backslashes stay.
func unescapeMarkdown(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && isASCIIPunct(s[i+1]) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// isASCIIPunct reports whether c is ASCII punctuation, which Markdown lets
// a backslash escape.
func isASCIIPunct(c byte) bool {
	return strings.IndexByte("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", c) >= 0
}
