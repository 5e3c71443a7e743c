package importer

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// The fuzz targets below run their seeds with go test; search for more with
//
//	go test ./importer -run '^$' -fuzz FuzzReadMarkdown -fuzztime 2m -parallel 1
//
// and keep what they find under testdata/fuzz.

// fuzzOpts makes entries split often, in a zone with daylight saving.
func fuzzOpts(tb testing.TB) Options {
	return Options{Location: berlin(tb), MaxText: 40}
}

// checkInvariants holds what Read promises for every input: an *Error and
// no result, or a result whose entries are trimmed, valid UTF-8, within
// MaxText runes, in UTC to the microsecond, from 1900 on and oldest first.
func checkInvariants(t *testing.T, res *Result, err error, opts Options) {
	t.Helper()
	if err != nil {
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("error %v (%T) is not an *Error", err, err)
		}
		if res != nil {
			t.Fatalf("a result beside the error %v", err)
		}
		if e.Message == "" || !utf8.ValidString(e.Error()) {
			t.Fatalf("error %q says nothing or is not UTF-8", e.Error())
		}
		return
	}
	if res.Format == Recur {
		if len(res.Entries) != 0 || res.OpenRecur == nil {
			t.Fatalf("a Recur result with %d entries and no document", len(res.Entries))
		}
		return
	}
	if len(res.Entries) == 0 {
		t.Fatal("a result without entries and without an error")
	}
	for i, e := range res.Entries {
		switch {
		case e.Text == "" || strings.TrimSpace(e.Text) != e.Text:
			t.Fatalf("entry %d: text %q is empty or untrimmed", i, e.Text)
		case !utf8.ValidString(e.Text):
			t.Fatalf("entry %d: text %q is not UTF-8", i, e.Text)
		case utf8.RuneCountInString(e.Text) > opts.MaxText:
			t.Fatalf("entry %d: %d runes, over %d", i, utf8.RuneCountInString(e.Text), opts.MaxText)
		case e.OccurredAt.Location() != time.UTC || !e.OccurredAt.Equal(e.OccurredAt.Truncate(time.Microsecond)):
			t.Fatalf("entry %d: time %v not UTC to the microsecond", i, e.OccurredAt)
		case e.OccurredAt.Year() < 1899: // 1900 in a zone east of UTC
			t.Fatalf("entry %d: dated %v", i, e.OccurredAt)
		case e.Source == "":
			t.Fatalf("entry %d has no source", i)
		case i > 0 && e.OccurredAt.Before(res.Entries[i-1].OccurredAt):
			t.Fatalf("entry %d is older than the one before it", i)
		}
	}
}

// addFixture adds a file under testdata as a seed.
func addFixture(f *testing.F, name string, args func(data []byte) []any) {
	data, err := os.ReadFile("testdata/" + name)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(args(data)...)
}

func FuzzReadDayOne(f *testing.F) {
	addFixture(f, "dayone/Journal.json", func(d []byte) []any { return []any{d} })
	addFixture(f, "dayone-truncated.json", func(d []byte) []any { return []any{d} })
	f.Add([]byte(`{"metadata": {}, "entries": [{"creationDate": "2024-01-01T00:00:00Z", "text": "Hi\\. ![](dayone-moment://A)\n\n\n\nthere"}]}`))
	f.Add([]byte("\ufeff{\"entries\": [{\"uuid\": \"x\", \"creationDate\": \"1900-01-01T00:00:00+01:00\", \"text\": \"a\"}]}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		opts := fuzzOpts(t)
		res, err := Read("Journal.json", data, opts)
		checkInvariants(t, res, err, opts)
		if err == nil && res.Format != DayOne && res.Format != JRNL && res.Format != Recur {
			t.Fatalf("JSON read as %q", res.Format)
		}
	})
}

func FuzzReadJRNL(f *testing.F) {
	addFixture(f, "jrnl.json", func(d []byte) []any { return []any{d} })
	f.Add([]byte(`{"tags": {}, "entries": [{"date": "2024-03-31", "time": "02:30", "title": "Lost an hour.", "body": "Clocks changed"}]}`))
	f.Add([]byte(`{"entries": [{"date": "2024-01-01", "title": "今日は。", "body": "晴れ"}, {"date": "2024-01-01", "time": "23:59:59", "title": "x"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		opts := fuzzOpts(t)
		res, err := Read("jrnl.json", data, opts)
		checkInvariants(t, res, err, opts)
	})
}

func FuzzReadMarkdown(f *testing.F) {
	f.Add("2024-03-01.md", []byte("Walked to work.\n\nIt rained."))
	f.Add("notes/journal-20240305_2215.txt", []byte("---\ntitle: 'Evening'\ndate: \"2024-03-05 22:15 +0100\" # written late\ntags:\n  - a\n---\n# Evening\nTired."))
	f.Add("2024/03/02.md", []byte("---\ndate: 2024-03-02T07:30:15.5Z\n---\r\nMorning.\r"))
	f.Add("x.md", []byte("---\nno front matter\n---\ntext"))
	f.Add("2024-01-05 08.30.markdown", []byte("{ a Markdown file that starts like JSON }"))
	f.Add("202401050830.md", []byte("\ufeff"+strings.Repeat("Sentence one. ", 9)))
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		opts := fuzzOpts(t)
		res, err := Read(name, data, opts)
		checkInvariants(t, res, err, opts)
	})
}

func FuzzFrontMatter(f *testing.F) {
	f.Add("---\ndate: 2024-01-05\ntitle: \"A # title\"\n---\nBody")
	f.Add("---\n---\n")
	f.Add("---\nkey: value\n...\nrest")
	f.Add("---  \n\tnested: x\nDate: '2024-01-05 08:30'\n")
	f.Fuzz(func(t *testing.T, text string) {
		meta, body := frontMatter(text)
		if !strings.HasSuffix(text, body) {
			t.Fatalf("body %q is not the end of the text", body)
		}
		if meta == nil && body != text {
			t.Fatalf("no front matter, yet the body %q is not the whole text", body)
		}
		for k, v := range meta {
			if k != strings.ToLower(k) || v != strings.TrimSpace(v) || strings.Contains(k, "\n") || strings.Contains(v, "\n") {
				t.Fatalf("front matter %q: %q", k, v)
			}
		}
		if v, ok := meta["date"]; ok {
			if at, ok := parseFrontMatterDate(v, time.UTC); ok && at.IsZero() {
				t.Fatalf("date %q read as the zero time", v)
			}
		}
	})
}

func FuzzReadZip(f *testing.F) {
	for _, name := range []string{"dayone.zip", "markdown.zip", "markdown-undated.zip"} {
		addFixture(f, name, func(d []byte) []any { return []any{d} })
	}
	f.Add(makeZip(f, zipFile{"../2024-01-02.md", "out"}, zipFile{`notes\2024-01-01.md`, "in"}, zipFile{".obsidian/x.md", "hidden"}))
	f.Add(makeZip(f, zipFile{"a.json", `{"format": "recur-export", "version": 1}`}, zipFile{"2024-01-01.md", "beside"}))
	f.Fuzz(func(t *testing.T, data []byte) {
		opts := fuzzOpts(t)
		opts.MaxBytes = 1 << 20
		res, err := Read("upload.zip", data, opts)
		checkInvariants(t, res, err, opts)
	})
}

func FuzzClassify(f *testing.F) {
	f.Add([]byte(`{"format": "recur-export", "version": 1, "captures": []}`))
	f.Add([]byte(`{"captures": [], "format": "recur-export"}`))
	f.Add([]byte(`{"format": ["recur-export"], "entries": null, "metadata": 1}`))
	f.Add([]byte(`{"entries": [1, {"date": 2}], "tags": {}}`))
	f.Add([]byte(`{"entries": {}, "metadata": {}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := Read("export.json", data, fuzzOpts(t))
		checkInvariants(t, res, err, fuzzOpts(t))
		kind, cerr := newReader(Options{}).classify(file{"export.json", int64(len(data)), openBytes(data)})
		if cerr != nil {
			var e *Error
			if !errors.As(cerr, &e) {
				t.Fatalf("classify error %v is not an *Error", cerr)
			}
			return
		}
		if err == nil && res.Format != kind {
			t.Fatalf("read as %q, classified %q", res.Format, kind)
		}
		// A Recur export is handed on untouched.
		if err == nil && kind == Recur {
			if doc := recurDoc(t, res); !bytes.Equal(doc, data) {
				t.Fatalf("the export came back changed: %q", doc)
			}
		}
	})
}

// openBytes opens data as a file.
func openBytes(data []byte) func() (io.ReadCloser, error) {
	return func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
}
