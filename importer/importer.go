package importer

import (
	"archive/zip"
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// Format names what an upload was.
type Format string

// The formats Read and ReadFS recognise.
const (
	DayOne   Format = "dayone"   // Day One JSON export (a Journal.json, or the export .zip holding one or more journal JSON files and photos/ etc.)
	JRNL     Format = "jrnl"     // jrnl's `jrnl --export json`
	Markdown Format = "markdown" // Markdown (.md/.markdown/.txt) files with dates, in a zip or a folder, or a single file
	Recur    Format = "recur"    // Recur's own export: a JSON object whose top-level "format" is "recur-export"
)

// Title is the format's name for people: "Day One", "jrnl", "Markdown" or
// "Recur export".
func (f Format) Title() string {
	switch f {
	case DayOne:
		return "Day One"
	case JRNL:
		return "jrnl"
	case Markdown:
		return "Markdown"
	case Recur:
		return "Recur export"
	}
	return string(f)
}

// Entry is one journal entry read from an upload.
type Entry struct {
	OccurredAt time.Time // UTC, truncated to the microsecond
	Text       string    // trimmed, valid UTF-8, non-empty, at most Options.MaxText runes
	Source     string    // where it came from, for messages: "Journal.json, entry 12", "2024/2024-01-05.md (part 2 of 3)"
}

// Result is what an upload held.
type Result struct {
	Format  Format
	Entries []Entry // oldest first (stable sort by OccurredAt; parts of one split entry keep their order)
	Skipped int     // files or entries left out on purpose: photos and other non-text files, entries without text

	// OpenRecur opens the export document, untouched, at its start: for
	// Format Recur only, nil otherwise (and Entries is empty). It reads the
	// document from where it lies, the file, zip or folder the result was
	// read from, which must stay open until the export is restored; each
	// call opens it again. The bytes it reads count against MaxJSONBytes
	// and Options.MaxBytes: a read past either, or one that fails, returns
	// an *Error, the one Read would have returned for it.
	OpenRecur func() (io.ReadCloser, error)
}

// Options say how to read what an upload leaves open.
type Options struct {
	Location *time.Location // for dates and times without a zone (jrnl, Markdown); nil means UTC
	MaxText  int            // entries longer than this many runes are split; 0 means 10000
	MaxBytes int64          // cap on the uncompressed bytes read from a zip or folder, in all; 0 means 512 MiB
	// MaxRecurBytes caps a Recur export; 0 means MaxJSONBytes, as for every
	// upload, and NoLimit none at all: the owner's recur import, whose
	// restore reads the file a record at a time whatever its size.
	MaxRecurBytes int64
}

// NoLimit as Options.MaxRecurBytes takes a Recur export of any size.
const NoLimit = -1

// Defaults for Options left zero.
const (
	defaultMaxText  = 10000
	defaultMaxBytes = 512 << 20
)

// Error says what is wrong with an upload, naming the file or entry. Nothing
// of a malformed upload is imported.
type Error struct {
	Source  string // "Journal.json, entry 12", "notes/todo.md", or "" for the upload as a whole
	Message string // one sentence that says what to do
}

// Error returns "Source: Message", or just Message for the upload as a whole.
func (e *Error) Error() string {
	if e.Source == "" {
		return e.Message
	}
	return e.Source + ": " + e.Message
}

// errorf makes an *Error about source.
func errorf(source, format string, args ...any) *Error {
	return &Error{Source: source, Message: fmt.Sprintf(format, args...)}
}

// accepted lists what can be imported, for messages.
const accepted = "upload a Day One export (the .zip or its Journal.json), a jrnl export (jrnl --export json), " +
	"Markdown files (.md, .markdown or .txt: one file, or a .zip of them) or a Recur export"

// errNoEntries is the error of an upload without a single entry.
func errNoEntries() *Error {
	return &Error{Message: "No journal entries found in this upload."}
}

// Read reads one uploaded file held in memory, as ReadAt does.
func Read(name string, data []byte, opts Options) (*Result, error) {
	return ReadAt(name, bytes.NewReader(data), int64(len(data)), opts)
}

// ReadAt reads one uploaded file of size bytes: a zip, a JSON export (Day
// One, jrnl or Recur), or a single Markdown file. name is the file's name,
// used in messages and to recognise a single .md, .markdown or .txt file;
// it may be "". The kind of file is told by its content, not its name. The
// file is read in pieces, never held whole, within the limits of limits.go;
// a Recur export is not read but handed on (see Result.OpenRecur), so ra must
// stay open while it is restored. Every error about the content is an *Error.
func ReadAt(name string, ra io.ReaderAt, size int64, opts Options) (*Result, error) {
	r := newReader(opts)
	name = cleanName(name)
	f := file{path: name, size: size, open: func() (io.ReadCloser, error) {
		return io.NopCloser(io.NewSectionReader(ra, 0, size)), nil
	}}
	head := make([]byte, 4)
	n, _ := ra.ReadAt(head, 0)
	head = head[:n]
	switch first := firstByte(io.NewSectionReader(ra, 0, size)); {
	case first == 0:
		return nil, &Error{Source: name, Message: "the file is empty; " + accepted + "."}
	case bytes.Equal(head, []byte("PK\x03\x04")) || bytes.Equal(head, []byte("PK\x05\x06")):
		dir := &directoryReader{ra: ra}
		zr, err := zip.NewReader(dir, size)
		dir.done = true
		switch {
		case errors.Is(err, errDirectoryTooLarge):
			return nil, &Error{Source: name, Message: fmt.Sprintf("the zip's list of files is larger than %s; split it into smaller uploads.", sizeText(maxDirectory))}
		// Insecure names (reported only under GODEBUG=zipinsecurepath=0)
		// do no harm: readZip skips them.
		case err != nil && !errors.Is(err, zip.ErrInsecurePath):
			return nil, &Error{Source: name, Message: fmt.Sprintf("this zip cannot be opened (%v); make the zip again and upload it.", err)}
		}
		if len(zr.File) > maxFiles {
			return nil, errTooManyFiles()
		}
		return r.readZip(zr)
	case first == '{':
		kind, err := r.classify(f)
		if err != nil && !isMarkdownName(name) {
			return nil, err
		}
		switch kind {
		case Recur:
			return r.readRecur(f)
		case DayOne:
			r.res.Format = DayOne
			err = r.readDayOne(f)
		case JRNL:
			r.res.Format = JRNL
			err = r.readJRNL(f)
		default:
			// A Markdown or text file that happens to start with "{".
			if !isMarkdownName(name) {
				return nil, &Error{Source: name, Message: "this JSON is not a journal export Recur knows; " + accepted + "."}
			}
			r.res.Format = Markdown
			err = r.readMarkdown(f)
		}
		if err != nil {
			return nil, err
		}
	case isMarkdownName(name):
		r.res.Format = Markdown
		if err := r.readMarkdown(f); err != nil {
			return nil, err
		}
	default:
		msg := "This is not a file Recur can import: " + accepted + "."
		if name != "" {
			msg = "not a file Recur can import; " + accepted + "."
		}
		return nil, &Error{Source: name, Message: msg}
	}
	return r.finish()
}

// firstByte is the first byte of r after a byte-order mark that is not a
// space, or 0 when there is none. It reads a piece at a time.
func firstByte(r io.Reader) byte {
	br := bufio.NewReader(r)
	if head, _ := br.Peek(3); bytes.Equal(head, []byte("\ufeff")) {
		br.Discard(3)
	}
	for {
		c, err := br.ReadByte()
		if err != nil {
			return 0
		}
		if !isSpace(c) {
			return c
		}
	}
}

// ReadFS reads a folder, or an opened zip: the Day One journal JSON files
// when it holds any, else a Recur export JSON, else jrnl JSON exports, else
// every Markdown file in it. Hidden files and folders (".obsidian",
// ".DS_Store"), "__MACOSX", links and files of other kinds are skipped
// without being read and counted in Result.Skipped. A Recur export is opened
// from fsys when it is restored, so fsys must stay in place until then.
// Every error about the content is an *Error.
func ReadFS(fsys fs.FS, opts Options) (*Result, error) {
	return newReader(opts).readFS(fsys)
}

// reader gathers the entries of one upload.
type reader struct {
	loc     *time.Location
	maxText int
	budget  int64 // bytes still allowed to be read from a zip or folder
	limit   int64 // the whole budget, for messages
	recur   int64 // the most bytes of a Recur export; unlimited for none
	text    int   // bytes of text in res.Entries
	res     Result
}

func newReader(opts Options) *reader {
	r := &reader{loc: opts.Location, maxText: opts.MaxText, budget: opts.MaxBytes, recur: opts.MaxRecurBytes}
	switch {
	case r.recur == 0:
		r.recur = MaxJSONBytes
	case r.recur < 0:
		r.recur = unlimited
	}
	if r.loc == nil {
		r.loc = time.UTC
	}
	if r.maxText <= 0 {
		r.maxText = defaultMaxText
	}
	if r.budget <= 0 {
		r.budget = defaultMaxBytes
	}
	r.limit = r.budget
	return r
}

// add adds one entry read from source, split into parts when its text is
// longer than the limit. An entry without text is skipped.
func (r *reader) add(source string, at time.Time, text string) error {
	if !utf8.ValidString(text) {
		return errorf(source, "the text is not valid UTF-8; save it as UTF-8 and upload it again.")
	}
	text = strings.TrimSpace(text)
	if text == "" {
		r.res.Skipped++
		return nil
	}
	if at.Year() < 1900 {
		return errorf(source, "dated %s, before 1900; correct the date and upload it again.", at.Format("2006-01-02"))
	}
	at = at.UTC().Truncate(time.Microsecond)
	if r.text += len(text); r.text > MaxTextBytes {
		return &Error{Message: fmt.Sprintf("This upload holds more than %s of text; split it into smaller uploads.", sizeText(MaxTextBytes))}
	}
	parts := splitText(text, r.maxText)
	if len(r.res.Entries)+len(parts) > MaxEntries {
		return &Error{Message: fmt.Sprintf("This upload holds more than %d entries; split it into smaller uploads.", MaxEntries)}
	}
	for i, p := range parts {
		src := source
		if len(parts) > 1 {
			src = fmt.Sprintf("%s (part %d of %d)", source, i+1, len(parts))
		}
		r.res.Entries = append(r.res.Entries, Entry{OccurredAt: at, Text: p, Source: src})
	}
	return nil
}

// finish sorts the entries, oldest first, and refuses an upload without any.
func (r *reader) finish() (*Result, error) {
	if r.res.Format != Recur && len(r.res.Entries) == 0 {
		return nil, errNoEntries()
	}
	slices.SortStableFunc(r.res.Entries, func(a, b Entry) int { return a.OccurredAt.Compare(b.OccurredAt) })
	res := r.res
	return &res, nil
}

// isJSONObject reports whether data starts like a JSON object.
func isJSONObject(data []byte) bool {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	data = bytes.TrimLeft(data, " \t\r\n")
	return len(data) > 0 && data[0] == '{'
}

// isMarkdownName reports whether a file name is one read as Markdown.
func isMarkdownName(name string) bool {
	switch strings.ToLower(path.Ext(name)) {
	case ".md", ".markdown", ".txt":
		return true
	}
	return false
}

// entrySource names entry i (0-based) of a file, for messages.
func entrySource(file string, i int) string {
	if file == "" {
		return fmt.Sprintf("entry %d", i+1)
	}
	return fmt.Sprintf("%s, entry %d", file, i+1)
}

// normalizeNewlines drops a byte-order mark and turns CRLF and CR line ends into LF.
func normalizeNewlines(s string) string {
	s = strings.TrimPrefix(s, "\ufeff")
	if !strings.Contains(s, "\r") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

// cleanName is a file name as messages and sources show it: with forward
// slashes, and valid UTF-8 whatever the zip or form said.
func cleanName(name string) string {
	return strings.ToValidUTF8(strings.ReplaceAll(name, `\`, "/"), "\uFFFD")
}
