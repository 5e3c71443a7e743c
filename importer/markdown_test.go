package importer

import (
	"archive/zip"
	"bytes"
	"os"
	"testing"
	"time"
)

// markdownEntries is what testdata/markdown holds, read in Berlin; its
// hidden folder, its image and its empty note are skipped.
var markdownEntries = []Entry{
	{utc("2024-03-01T11:00:00Z"), "Slow morning. Read on the couch until eleven.", "2024-03-01.md"},
	{utc("2024-03-02T11:00:00Z"), "# Saturday\n\nMarket with Mia, then a long nap.\nFelt lighter than all week.", "2024/03/02.md"},
	{utc("2024-03-03T06:45:00Z"), "Early run along the river. Knee hurt a bit at the end.", "2024-03-03 07.45.md"},
	{utc("2024-03-04T20:30:00Z"), "# Evening with the neighbours\n\nDinner next door. Too much wine, slept badly.", "notes/evening.md"},
	{utc("2024-03-05T21:15:00Z"), "Could not sleep. Made tea and read.", "notes/journal-20240305_2215.txt"},
}

func TestReadMarkdown(t *testing.T) {
	t.Parallel()
	t.Run("Folder", func(t *testing.T) {
		res, err := ReadFS(os.DirFS("testdata/markdown"), Options{Location: berlin(t)})
		if err != nil {
			t.Fatal(err)
		}
		checkResult(t, res, Markdown, 3, markdownEntries)
	})
	t.Run("Zip", func(t *testing.T) {
		checkResult(t, mustRead(t, "markdown.zip", Options{Location: berlin(t)}), Markdown, 3, markdownEntries)
	})
	t.Run("ZipAsFS", func(t *testing.T) {
		data, err := os.ReadFile("testdata/markdown.zip")
		if err != nil {
			t.Fatal(err)
		}
		zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		res, err := ReadFS(zr, Options{Location: berlin(t)})
		if err != nil {
			t.Fatal(err)
		}
		checkResult(t, res, Markdown, 3, markdownEntries)
	})
	t.Run("MacZip", func(t *testing.T) {
		files := append(folderFiles(t, "testdata/markdown"), zipFile{"__MACOSX/._2024-03-01.md", "\x00\x05\x16\x07"}, zipFile{".DS_Store", "\x00\x00\x00\x01Bud1"})
		res, err := Read("Journal.zip", makeZip(t, files...), Options{Location: berlin(t)})
		if err != nil {
			t.Fatal(err)
		}
		checkResult(t, res, Markdown, 5, markdownEntries)
	})
	t.Run("SingleFile", func(t *testing.T) {
		res, err := Read("2024-01-05 08.30.md", []byte("\ufeffCold walk to work.\r\n\r\nBus was late.\r\n"), Options{Location: berlin(t)})
		if err != nil {
			t.Fatal(err)
		}
		checkResult(t, res, Markdown, 0, []Entry{{utc("2024-01-05T07:30:00Z"), "Cold walk to work.\n\nBus was late.", "2024-01-05 08.30.md"}})
	})
	t.Run("FrontMatterZone", func(t *testing.T) {
		doc := "---\ndate: '2024-07-01T22:15:00-04:00'\ntitle: Late\n---\n# Late\n\nStill up."
		res, err := Read("note.md", []byte(doc), Options{Location: berlin(t)})
		if err != nil {
			t.Fatal(err)
		}
		// The title is already the heading, so it is not put in twice.
		checkResult(t, res, Markdown, 0, []Entry{{utc("2024-07-02T02:15:00Z"), "# Late\n\nStill up.", "note.md"}})
	})
	t.Run("JSONLookingText", func(t *testing.T) {
		res, err := Read("2024-02-02.txt", []byte("{braces} are how I start a note"), Options{})
		if err != nil {
			t.Fatal(err)
		}
		checkResult(t, res, Markdown, 0, []Entry{{utc("2024-02-02T12:00:00Z"), "{braces} are how I start a note", "2024-02-02.txt"}})
	})
}

func TestPathDate(t *testing.T) {
	t.Parallel()
	loc := berlin(t)
	for _, c := range []struct {
		path string
		want string // local time in Berlin, "" for none
	}{
		{"2024-01-05.md", "2024-01-05 12:00:00"},
		{"2024_01_05.md", "2024-01-05 12:00:00"},
		{"20240105.md", "2024-01-05 12:00:00"},
		{"Journal 2024-01-05 Friday.md", "2024-01-05 12:00:00"},
		{"2024-01-05 08.30.md", "2024-01-05 08:30:00"},
		{"2024-01-05T0830.md", "2024-01-05 08:30:00"},
		{"2024-01-05 08-30.md", "2024-01-05 08:30:00"},
		{"2024-01-05 08:30:15.md", "2024-01-05 08:30:15"},
		{"2024-01-05_0830 breakfast.md", "2024-01-05 08:30:00"},
		{"202401050830 Zettel.md", "2024-01-05 08:30:00"},
		{"2024-01-05 10 things.md", "2024-01-05 12:00:00"},
		{"2024-01-05 2024-01-09.md", "2024-01-05 12:00:00"},
		{"2024-01-05 25.00.md", "2024-01-05 12:00:00"},
		{"2024/03/02.md", "2024-03-02 12:00:00"},
		{"journal/2024/3/2 Saturday.md", "2024-03-02 12:00:00"},
		{"2024/03/02/morning.md", "2024-03-02 12:00:00"},
		{"2024/2024-01-05.md", "2024-01-05 12:00:00"},
		{"days/2024-01-05/morning.md", "2024-01-05 12:00:00"},
		{"2024-02-30.md", ""},
		{"1850-01-01.md", ""},
		{"123420240105.md", ""},
		{"notes/ideas.md", ""},
		{"v2.md", ""},
	} {
		t.Run(c.path, func(t *testing.T) {
			got, ok := pathDate(c.path, loc)
			if c.want == "" {
				if ok {
					t.Errorf("pathDate(%q) = %v, want none", c.path, got)
				}
				return
			}
			if !ok || got.Format(time.DateTime) != c.want || got.Location() != loc {
				t.Errorf("pathDate(%q) = %v, %v; want %s in Berlin", c.path, got, ok, c.want)
			}
		})
	}
}

func TestFrontMatterDate(t *testing.T) {
	t.Parallel()
	loc := berlin(t)
	for _, c := range []struct{ in, want string }{
		{"2024-01-05", "2024-01-05T11:00:00Z"},
		{"2024-01-05 08:30", "2024-01-05T07:30:00Z"},
		{"2024-01-05T08:30:45", "2024-01-05T07:30:45Z"},
		{"2024-01-05T08:30:00Z", "2024-01-05T08:30:00Z"},
		{"2024-01-05T08:30:00.250+05:30", "2024-01-05T03:00:00.25Z"},
		{"2024-01-05 08:30:00 +0100", "2024-01-05T07:30:00Z"},
		{"2024-03-31", "2024-03-31T10:00:00Z"}, // noon on the day the clocks change
		{"January 5th", ""},
		{"2024-13-01", ""},
	} {
		got, ok := parseFrontMatterDate(c.in, loc)
		switch {
		case c.want == "" && ok:
			t.Errorf("parseFrontMatterDate(%q) = %v, want it refused", c.in, got)
		case c.want != "" && (!ok || !got.Equal(utc(c.want))):
			t.Errorf("parseFrontMatterDate(%q) = %v, %v; want %s", c.in, got, ok, c.want)
		}
	}
}

func TestFrontMatter(t *testing.T) {
	t.Parallel()
	meta, body := frontMatter("---\ntitle: \"Hello: world\" \ndate: 2024-01-05 # written late\ntags:\n  - a\n  - b\n---\nBody\n")
	if got, want := meta["title"], "Hello: world"; got != want {
		t.Errorf("title = %q, want %q", got, want)
	}
	if got, want := meta["date"], "2024-01-05"; got != want {
		t.Errorf("date = %q, want %q", got, want)
	}
	if got, want := body, "Body\n"; got != want {
		t.Errorf("body = %q, want %q", got, want)
	}
	// Rules around text, or a rule that never closes, are part of the text.
	for _, text := range []string{"---\nNot front matter\n", "---\nA thought between rules.\n---\nMore.\n"} {
		if meta, body := frontMatter(text); meta != nil || body != text {
			t.Errorf("frontMatter(%q) = %v, %q; want it all body", text, meta, body)
		}
	}
}
