package journal

import (
	"archive/zip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/recur-journal/recur/importer"
	"github.com/recur-journal/recur/store"
)

// markdownPage is how many entries the Markdown export reads at a time.
const markdownPage = 200

// MarkdownDateLayout is how the export's front matter writes an entry's
// moment: in the user's timezone with its offset, to the microsecond when
// the moment has one, so that an import finds the same moment again.
const MarkdownDateLayout = "2006-01-02T15:04:05.999999-07:00"

// ExportMarkdown writes the user's journal to w as a zip of Markdown files,
// one per entry, oldest first, named YYYY/YYYY-MM-DD-HHMM-<short id>.md
// after the entry's moment in the user's timezone. Each file has a YAML
// front matter (date with its offset, language, tags by type, patterns by
// name, and "translated: true" when the entry was translated) and then the
// entry's text as it was written; its translation follows under the heading
// importer.MarkdownTranslationHeading. Entries are read a page at a time and
// written as they come, so memory does not grow with the journal. Importing
// the zip brings back each text at its moment, without the translation.
func ExportMarkdown(ctx context.Context, st *store.Store, userID string, w io.Writer) error {
	loc, err := st.Location(ctx, userID)
	if err != nil {
		return err
	}
	zw := zip.NewWriter(w)
	var cursor store.EntryCursor
	names := map[string]bool{} // the names used in the current minute
	minute := ""
	for {
		page, err := st.EntriesAfter(ctx, userID, cursor, markdownPage)
		if err != nil {
			return err
		}
		for i := range page {
			e := &page[i]
			at := e.OccurredAt.In(loc)
			if m := at.Format("2006-01-02-1504"); m != minute {
				minute, names = m, map[string]bool{}
			}
			name := markdownName(at, e.ID, names)
			f, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: at})
			if err != nil {
				return err
			}
			if _, err := io.WriteString(f, markdownEntry(e, at)); err != nil {
				return err
			}
		}
		if len(page) < markdownPage {
			break
		}
		last := page[len(page)-1]
		cursor = store.EntryCursor{OccurredAt: last.OccurredAt, ID: last.ID}
	}
	return zw.Close()
}

// markdownName names an entry's file by its local moment and the end of its
// id (the start of a time-ordered id is the same for entries made together),
// or the whole id when two entries of one minute share that end.
func markdownName(at time.Time, id string, used map[string]bool) string {
	short := strings.ReplaceAll(id, "-", "")
	short = short[max(len(short)-8, 0):]
	name := at.Format("2006/2006-01-02-1504-") + short + ".md"
	if used[name] {
		name = at.Format("2006/2006-01-02-1504-") + id + ".md"
	}
	used[name] = true
	return name
}

// markdownEntry renders one entry: front matter, text, translation.
func markdownEntry(e *store.Entry, at time.Time) string {
	var b strings.Builder
	b.WriteString("---\n")
	fmt.Fprintf(&b, "date: %s\n", at.Format(MarkdownDateLayout))
	if e.Language != "" {
		fmt.Fprintf(&b, "language: %s\n", yamlString(e.Language))
	}
	if len(e.Tags) > 0 {
		b.WriteString("tags:\n")
		for i := 0; i < len(e.Tags); {
			j := i
			var names []string
			for ; j < len(e.Tags) && e.Tags[j].Type == e.Tags[i].Type; j++ {
				names = append(names, yamlString(e.Tags[j].Name))
			}
			fmt.Fprintf(&b, "  %s: [%s]\n", e.Tags[i].Type, strings.Join(names, ", "))
			i = j
		}
	}
	if len(e.Patterns) > 0 {
		names := make([]string, len(e.Patterns))
		for i, p := range e.Patterns {
			names[i] = yamlString(p)
		}
		fmt.Fprintf(&b, "patterns: [%s]\n", strings.Join(names, ", "))
	}
	translated := e.Translated != "" && e.Translated != e.Original // an English text is its own translation
	if translated {
		b.WriteString("translated: true\n")
	}
	b.WriteString("---\n\n")
	b.WriteString(strings.TrimSpace(e.Original))
	b.WriteString("\n")
	if translated {
		b.WriteString("\n" + importer.MarkdownTranslationHeading + "\n\n")
		b.WriteString(strings.TrimSpace(e.Translated))
		b.WriteString("\n")
	}
	return b.String()
}

// yamlString quotes s as a YAML double-quoted scalar: JSON's string syntax
// is a subset of it.
func yamlString(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}
