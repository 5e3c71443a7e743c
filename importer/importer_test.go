package importer

import (
	"archive/zip"
	"bytes"
	"errors"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

// berlin is the zone the tests read local dates and times in.
func berlin(tb testing.TB) *time.Location {
	tb.Helper()
	loc, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		tb.Fatal(err)
	}
	return loc
}

// mustRead reads a fixture file with Read.
func mustRead(tb testing.TB, file string, opts Options) *Result {
	tb.Helper()
	data, err := os.ReadFile("testdata/" + file)
	if err != nil {
		tb.Fatal(err)
	}
	res, err := Read(file, data, opts)
	if err != nil {
		tb.Fatalf("Read(%s): %v", file, err)
	}
	return res
}

// utc is a time in UTC.
func utc(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

// checkResult compares a result with the format, entries and skipped count wanted.
func checkResult(t *testing.T, res *Result, format Format, skipped int, want []Entry) {
	t.Helper()
	if got := res.Format; got != format {
		t.Errorf("Format = %q, want %q", got, format)
	}
	if got := res.Skipped; got != skipped {
		t.Errorf("Skipped = %d, want %d", got, skipped)
	}
	if len(res.Entries) != len(want) {
		for _, e := range res.Entries {
			t.Logf("got %s %q (%s)", e.OccurredAt.Format(time.RFC3339), e.Text, e.Source)
		}
		t.Fatalf("got %d entries, want %d", len(res.Entries), len(want))
	}
	for i, w := range want {
		g := res.Entries[i]
		if !g.OccurredAt.Equal(w.OccurredAt) || g.OccurredAt.Location() != time.UTC {
			t.Errorf("entry %d: OccurredAt = %v, want %v in UTC", i, g.OccurredAt, w.OccurredAt)
		}
		if g.Text != w.Text {
			t.Errorf("entry %d: Text = %q, want %q", i, g.Text, w.Text)
		}
		if g.Source != w.Source {
			t.Errorf("entry %d: Source = %q, want %q", i, g.Source, w.Source)
		}
	}
}

// recurDoc reads the Recur export a result hands on.
func recurDoc(tb testing.TB, res *Result) []byte {
	tb.Helper()
	rc, err := res.OpenRecur()
	if err != nil {
		tb.Fatal(err)
	}
	defer rc.Close()
	doc, err := io.ReadAll(rc)
	if err != nil {
		tb.Fatal(err)
	}
	return doc
}

func TestReadRecur(t *testing.T) {
	t.Parallel()
	doc := []byte(`{"format": "recur-export", "version": 1, "captures": []}`)
	t.Run("JSON", func(t *testing.T) {
		res, err := Read("recur-export.json", doc, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Format != Recur || len(res.Entries) != 0 {
			t.Fatalf("got %+v, want a Recur export", res)
		}
		// The restore may open it a second time.
		for range 2 {
			if got := recurDoc(t, res); string(got) != string(doc) {
				t.Fatalf("document %q, want it untouched", got)
			}
		}
	})
	t.Run("Zip", func(t *testing.T) {
		res, err := Read("backup.zip", makeZip(t, zipFile{"recur-export.json", string(doc)}, zipFile{"README.md", "hi"}), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Format != Recur || string(recurDoc(t, res)) != string(doc) || res.Skipped != 1 {
			t.Fatalf("got %+v, want the document and one file skipped", res)
		}
	})
	t.Run("Folder", func(t *testing.T) {
		fsys := &openLog{FS: fstest.MapFS{"backup/recur-export.json": {Data: doc}}}
		res, err := ReadFS(fsys, Options{})
		if err != nil {
			t.Fatal(err)
		}
		// Told what it is, but not read whole until it is restored.
		opened := len(fsys.opened)
		if res.Format != Recur || string(recurDoc(t, res)) != string(doc) || len(fsys.opened) != opened+1 {
			t.Fatalf("got %+v, opened %v; want the document opened from the folder when asked", res, fsys.opened)
		}
	})
}

// drain reads the Recur export a result hands on to its end, and returns
// the bytes it read and the error that stopped it.
func drain(tb testing.TB, res *Result) (int64, error) {
	tb.Helper()
	rc, err := res.OpenRecur()
	if err != nil {
		tb.Fatal(err)
	}
	defer rc.Close()
	return io.Copy(io.Discard, rc)
}

// spaces reads as endless spaces.
type spaces struct{}

func (spaces) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	return len(p), nil
}

// A Recur export over a limit is refused with the sentence that names the
// limit: at once when it says its size, else by the read that goes past it.
func TestReadRecurLimits(t *testing.T) {
	t.Parallel()
	head := `{"format": "recur-export", "version": 1, "captures": []`
	t.Run("ErrClaimed", func(t *testing.T) {
		// A zip whose header says the export is over the limit.
		var buf bytes.Buffer
		w := zip.NewWriter(&buf)
		fw, err := w.CreateRaw(&zip.FileHeader{Name: "recur-export.json", Method: zip.Store,
			CompressedSize64: uint64(len(head)), UncompressedSize64: MaxJSONBytes + 1, CRC32: crc32.ChecksumIEEE([]byte(head))})
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(fw, head)
		w.Close()
		res, err := Read("backup.zip", buf.Bytes(), Options{})
		if want := "recur-export.json: larger than 64 MiB once unpacked, the limit for a Recur export sent as an upload; run recur import on the server instead, which takes an export of any size."; err == nil || err.Error() != want {
			t.Fatalf("Read = %+v, %v; want %q", res, err, want)
		}
	})
	t.Run("ErrRead", func(t *testing.T) {
		// A file that does not say its size, found over the limit as the
		// restore reads it.
		open := func() (io.ReadCloser, error) {
			return io.NopCloser(io.MultiReader(strings.NewReader(head), io.LimitReader(spaces{}, MaxJSONBytes))), nil
		}
		res, err := newReader(Options{}).readRecur(file{"recur-export.json", -1, open})
		if err != nil {
			t.Fatal(err)
		}
		n, err := drain(t, res)
		var e *Error
		if want := "recur-export.json: larger than 64 MiB once unpacked, the limit for a Recur export sent as an upload; run recur import on the server instead, which takes an export of any size."; !errors.As(err, &e) || err.Error() != want {
			t.Fatalf("read %d bytes, err %v; want %q", n, err, want)
		}
		if n > MaxJSONBytes+readChunk {
			t.Errorf("read %d bytes, past the limit", n)
		}
	})
	t.Run("NoLimit", func(t *testing.T) {
		// The owner's recur import takes an export over every limit of an
		// upload, the cap lowered here to stand for 64 MiB.
		doc := head + strings.Repeat(" ", 4000) + "}"
		capped := Options{MaxRecurBytes: 2048}
		if res, err := Read("recur-export.json", []byte(doc), capped); err == nil || !strings.Contains(err.Error(), "larger than 2 KiB") {
			t.Fatalf("under a 2 KiB cap, Read = %+v, %v; want the export refused", res, err)
		}
		zipped := makeZip(t, zipFile{"recur-export.json", doc})
		for name, data := range map[string][]byte{"recur-export.json": []byte(doc), "backup.zip": zipped} {
			res, err := Read(name, data, Options{MaxRecurBytes: NoLimit, MaxBytes: 1000})
			if err != nil {
				t.Fatalf("%s with no limit: %v", name, err)
			}
			if n, err := drain(t, res); err != nil || n != int64(len(doc)) {
				t.Fatalf("%s with no limit: read %d bytes of %d, %v", name, n, len(doc), err)
			}
		}
	})
	t.Run("ErrBudget", func(t *testing.T) {
		// A zip's budget counts the export as the restore unpacks it.
		doc := head + strings.Repeat(" ", 2000) + "}"
		res, err := Read("backup.zip", makeZip(t, zipFile{"recur-export.json", doc}), Options{MaxBytes: 1000})
		if err != nil {
			t.Fatal(err)
		}
		_, err = drain(t, res)
		var e *Error
		if want := "This upload holds more than 1000 bytes once unpacked; split it into smaller uploads."; !errors.As(err, &e) || err.Error() != want {
			t.Fatalf("err %v; want %q", err, want)
		}
	})
}

// openLog is a file system that records which files were opened.
type openLog struct {
	fs.FS
	opened []string
}

func (o *openLog) Open(name string) (fs.File, error) {
	f, err := o.FS.Open(name)
	if err == nil {
		if st, _ := f.Stat(); st != nil && !st.IsDir() {
			o.opened = append(o.opened, name)
		}
	}
	return f, err
}

func TestReadFSSkipsUnread(t *testing.T) {
	t.Parallel()
	journal, err := os.ReadFile("testdata/dayone/Journal.json")
	if err != nil {
		t.Fatal(err)
	}
	fsys := &openLog{FS: fstest.MapFS{
		"Export/Journal.json":             {Data: journal},
		"Export/photos/abc.jpeg":          {Data: []byte(tinyJPEG)},
		"Export/pdfs/def.pdf":             {Data: []byte("%PDF-1.4")},
		"Export/notes.md":                 {Data: []byte("An undated note")},
		"Export/.hidden/secret.md":        {Data: []byte("2024-01-01")},
		"Export/link.json":                {Data: []byte("{}"), Mode: fs.ModeSymlink},
		"Export/settings.json":            {Data: []byte(`{"theme": "dark"}`)},
		"__MACOSX/Export/._Journal.json":  {Data: []byte("\x00")},
		"Export/audios/ghi.m4a":           {Data: []byte("m4a")},
		"Export/videos/3c59dc048e885.mov": {Data: []byte("mov")},
	}}
	res, err := ReadFS(fsys, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// 2 entries without text; photo, PDF, audio, video, note, hidden
	// folder, link, settings, __MACOSX.
	if got, want := res.Skipped, 2+9; got != want {
		t.Errorf("Skipped = %d, want %d", got, want)
	}
	// A journal is opened once to tell what it is and once to read it.
	slices.Sort(fsys.opened)
	if got, want := strings.Join(slices.Compact(fsys.opened), " "), "Export/Journal.json Export/settings.json"; got != want {
		t.Errorf("opened %s, want only %s", got, want)
	}
}

func TestReadErrors(t *testing.T) {
	t.Parallel()
	long := "{" + strings.Repeat(" ", 100) + "}"
	for _, c := range []struct {
		name string
		file string // a fixture, or
		data string // the upload itself
		opts Options
		want string // what Error() says
	}{
		{name: "Truncated", file: "dayone-truncated.json", want: "dayone-truncated.json: not valid JSON near line 62"},
		{name: "NoCreationDate", file: "dayone-no-date.json", want: "dayone-no-date.json, entry 2: the entry has no creationDate; "},
		{name: "Undated", file: "markdown-undated.zip", want: "notes/ideas.md: no date: name the file like 2024-01-05.md or add a `date:` line to its front matter."},
		{name: "NotAJournal", file: "not-a-journal.json", want: "not-a-journal.json: this JSON is not a journal export Recur knows; upload a Day One export"},
		{name: "TooBig", file: "markdown.zip", opts: Options{MaxBytes: 100}, want: "This upload holds more than 100 bytes once unpacked; split it into smaller uploads."},
		{name: "Photo", data: tinyJPEG, want: "photo.jpeg: not a file Recur can import; upload a Day One export"},
		{name: "NoName", data: "just some text", want: "This is not a file Recur can import: upload"},
		{name: "Empty", data: " \n", want: "photo.jpeg: the file is empty; "},
		{name: "NotZip", data: "PK\x03\x04 broken", want: "photo.jpeg: this zip cannot be opened"},
		{name: "Array", data: "[1, 2]", want: "photo.jpeg: not a file Recur can import"},
		{name: "JSONTypo", data: long[:60] + `"entries": [}`, want: "photo.jpeg: not valid JSON near line 1, column 74"},
		{name: "NoEntries", data: `{"metadata": {"version": "1.0"}, "entries": [{"creationDate": "2024-01-01T00:00:00Z", "text": "![](dayone-moment://A1)"}]}`, want: "No journal entries found in this upload."},
		{name: "DayOneBadDate", data: `{"entries": [{"creationDate": "yesterday", "text": "x"}]}`, want: `photo.jpeg, entry 1: the creationDate "yesterday" is not a date like 2023-01-05T18:23:11Z`},
		{name: "DayOneWrongType", data: `{"entries": [{"creationDate": "2024-01-01T00:00:00Z", "text": 12}]}`, want: `photo.jpeg, entry 1: its "text" is a JSON number where string belongs`},
		{name: "DayOne1850", data: `{"entries": [{"creationDate": "1850-01-01T00:00:00Z", "text": "x"}]}`, want: "photo.jpeg, entry 1: dated 1850-01-01, before 1900; "},
		{name: "JRNLNoDate", data: `{"tags": {}, "entries": [{"title": "Hi", "body": "", "time": "09:00"}]}`, want: "photo.jpeg, entry 1: the entry has no date; "},
		{name: "JRNLBadTime", data: `{"tags": {}, "entries": [{"title": "Hi", "body": "", "date": "2024-01-01", "time": "9 am"}]}`, want: `photo.jpeg, entry 1: the time "9 am" is not a time like 08:30`},
		{name: "MixedJSON", data: zipOf(t, zipFile{"a.json", `{"tags": {}, "entries": [{"date": "2024-01-01"}]}`}, zipFile{"b.json", `{"metadata": {}, "entries": []}`}), want: "This upload holds both Day One and jrnl exports"},
		{name: "TwoRecur", data: zipOf(t, zipFile{"a.json", `{"format": "recur-export"}`}, zipFile{"b.json", `{"format": "recur-export"}`}), want: "This upload holds a Recur export beside other journal files; upload the Recur export on its own."},
		{name: "NotUTF8", data: zipOf(t, zipFile{"2024-01-01.md", "caf\xe9"}), want: "2024-01-01.md: the file is not UTF-8 text; "},
		{name: "BadFrontMatterDate", data: zipOf(t, zipFile{"a.md", "---\ndate: soon\n---\nText"}), want: `a.md: the front matter's date "soon" is not a date; `},
		{name: "FrontMatter1850", data: zipOf(t, zipFile{"a.md", "---\ndate: 1850-06-01\n---\nText"}), want: "a.md: dated 1850-06-01, before 1900; "},
		{name: "EmptyZip", data: zipOf(t), want: "No journal entries found in this upload."},
	} {
		t.Run(c.name, func(t *testing.T) {
			name, data := "photo.jpeg", []byte(c.data)
			if c.name == "NoName" {
				name = ""
			}
			if c.file != "" {
				var err error
				name = c.file
				if data, err = os.ReadFile("testdata/" + c.file); err != nil {
					t.Fatal(err)
				}
			}
			res, err := Read(name, data, c.opts)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("Read = %+v, %v; want an *Error", res, err)
			}
			if !strings.HasPrefix(err.Error(), c.want) {
				t.Errorf("error %q, want it to start %q", err, c.want)
			}
			if res != nil {
				t.Errorf("a result beside the error: %+v", res)
			}
		})
	}
}

// zipOf is makeZip as a string, for tables.
func zipOf(tb testing.TB, files ...zipFile) string { return string(makeZip(tb, files...)) }

func TestTooManyFiles(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("makes a zip of 100001 files")
	}
	files := make([]zipFile, maxFiles+1)
	for i := range files {
		files[i] = zipFile{Name: "p/" + strings.Repeat("x", 1) + string(rune('a'+i%26)) + time.Duration(i).String() + ".jpeg"}
	}
	_, err := Read("many.zip", makeZip(t, files...), Options{})
	if err == nil || err.Error() != "This upload holds more than 100000 files; split it into smaller uploads." {
		t.Fatalf("err = %v", err)
	}
}

func TestErrorString(t *testing.T) {
	t.Parallel()
	if got, want := (&Error{Source: "a.md", Message: "no date."}).Error(), "a.md: no date."; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if got, want := (&Error{Message: "No journal entries found in this upload."}).Error(), "No journal entries found in this upload."; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

func TestZipUnsafeNames(t *testing.T) {
	t.Parallel()
	data := makeZip(t,
		zipFile{"../2024-01-02 escape.md", "Should not be read."},
		zipFile{"/2024-01-03 absolute.md", "Nor this."},
		zipFile{`notes\2024-01-01.md`, "Written on Windows."},
	)
	res, err := Read("journal.zip", data, Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkResult(t, res, Markdown, 2, []Entry{{utc("2024-01-01T12:00:00Z"), "Written on Windows.", "notes/2024-01-01.md"}})
}
