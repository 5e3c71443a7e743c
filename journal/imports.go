// Package journal holds the rules of a journal that sit above the store and
// below every way of reaching it: imports, feature locks and the timeline.
// The API (server) and the pages (web) only translate requests into calls of
// this package and its answers back; the command line calls it directly.
// Nothing here knows about HTTP.
package journal

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"mime/multipart"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sync"

	"github.com/recur-journal/recur/importer"
	"github.com/recur-journal/recur/store"
)

// Import hands what was read from an upload or a file to the store, as one
// batch named after it. An export of Recur itself is restored; anything else
// adds its entries as captures. It returns the store's errors, and the
// *importer.Error of an export that cannot be read to its end (nothing is
// restored then).
func Import(ctx context.Context, st *store.Store, userID, name string, res *importer.Result) (*store.ImportResult, error) {
	title := fmt.Sprintf("Import of %s (%s)", name, res.Format.Title())
	if res.Format == importer.Recur {
		return st.Restore(ctx, userID, title, res.OpenRecur)
	}
	entries := make([]store.ImportEntry, len(res.Entries))
	for i, e := range res.Entries {
		entries[i] = store.ImportEntry{OccurredAt: e.OccurredAt, Text: e.Text, Source: e.Source}
	}
	return st.ImportCaptures(ctx, userID, title, entries)
}

// ImportOptions are the importer's options for the user's journal: dates
// without a zone are read in their timezone setting, and entries are split
// to fit a capture.
func ImportOptions(ctx context.Context, st *store.Store, userID string) (importer.Options, error) {
	loc, err := st.Location(ctx, userID)
	if err != nil {
		return importer.Options{}, err
	}
	return importer.Options{Location: loc, MaxText: store.CaptureMaxLength}, nil
}

// ReadPath reads a journal from a file or a folder on this machine, a piece
// at a time and within the same limits as an upload. A file that cannot be
// read is an *importer.Error naming the entry at fault. A Recur export is
// read when it is restored, from the file itself: release closes the file
// once the import is done. release is never nil; after an error there is
// nothing left to release.
func ReadPath(name string, opts importer.Options) (res *importer.Result, release func(), err error) {
	info, err := os.Stat(name)
	if err != nil {
		return nil, func() {}, err
	}
	if info.IsDir() {
		res, err := importer.ReadFS(os.DirFS(name), opts)
		return res, func() {}, err
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, func() {}, err
	}
	release = func() { f.Close() }
	if res, err = importer.ReadAt(filepath.Base(name), f, info.Size(), opts); err != nil {
		release()
		return nil, func() {}, err
	}
	return res, release, nil
}

// Upload is an import as a client sent it: the file itself, or a multipart
// form with one file, or several Markdown files, in fields named file.
type Upload struct {
	ContentType string    // multipart/form-data for a form; anything else for the file itself
	Filename    string    // the file's name when the body is the file itself; may be empty
	Body        io.Reader // read once, as a stream
}

// Import limits.
const (
	// MaxFormFiles bounds the files of one multipart upload.
	MaxFormFiles = 1000
	// MaxImportsAtOnce bounds the imports read at once, over all accounts;
	// each account has one at a time.
	MaxImportsAtOnce = 2
	// ImportRetryAfter is how long, in seconds, a refused import should wait
	// before it tries again: most imports are read within it.
	ImportRetryAfter = 10
)

// EmptyUpload is the sentence that refuses an upload without content.
const EmptyUpload = "The upload is empty: send a Day One or jrnl JSON export, a zip of Markdown files or a Markdown file."

// BusyError refuses an import because too many are being read: the
// caller's own, or as many as Recur reads at once. Message says which.
type BusyError struct {
	Message    string
	RetryAfter int // seconds
}

// Error implements the error interface.
func (e *BusyError) Error() string { return e.Message }

// Importer reads uploads into journals, one per account at a time and a few
// in all, so that imports cannot take the machine's memory or disk.
type Importer struct {
	// Spool is where uploads are copied while they are read; set it before
	// the first Import. The zero Spool uses the system's temporary folder.
	Spool Spool

	store   *store.Store
	mu      sync.Mutex
	max     int
	running map[string]bool // by user id
}

// NewImporter returns an Importer that reads at most max uploads at once.
func NewImporter(st *store.Store, max int) *Importer {
	return &Importer{store: st, max: max, running: map[string]bool{}}
}

// acquire takes a slot for the user, or returns a *BusyError saying why
// there is none. release gives it back.
func (im *Importer) acquire(userID string) (release func(), err error) {
	im.mu.Lock()
	defer im.mu.Unlock()
	switch {
	case im.running[userID]:
		return nil, &BusyError{RetryAfter: ImportRetryAfter,
			Message: "An import of yours is still being read; wait until it is done, then send the next one."}
	case len(im.running) >= im.max:
		return nil, &BusyError{RetryAfter: ImportRetryAfter,
			Message: fmt.Sprintf("Recur is reading %d imports already, its limit at once; try again in a few seconds.", im.max)}
	}
	im.running[userID] = true
	return func() {
		im.mu.Lock()
		defer im.mu.Unlock()
		delete(im.running, userID)
	}, nil
}

// Import reads an upload into the user's journal once it holds a slot. It
// returns a *BusyError when it gets none, an *importer.Error when the upload
// cannot be read and a *SpaceError when it cannot be spooled (nothing is
// imported then), the error reading the body
// ended with when that failed (a body over its limit, a client gone), and
// the store's errors.
func (im *Importer) Import(ctx context.Context, userID string, up Upload) (*store.ImportResult, error) {
	release, err := im.acquire(userID)
	if err != nil {
		return nil, err
	}
	defer release()
	opts, err := ImportOptions(ctx, im.store, userID)
	if err != nil {
		return nil, err
	}
	name, res, release, err := im.Spool.ReadUpload(up, opts)
	if err != nil {
		return nil, err
	}
	defer release()
	return Import(ctx, im.store, userID, name, res)
}

// ReadUpload reads an upload and returns the name its import goes by. The
// body is copied to temporary files (readable by Recur alone), and the
// importer reads them a piece at a time, so that an upload is never held in
// memory whole; a Recur export is read from them when it is restored.
// release removes them once the import is done: it is never nil, and on an
// error they are removed already. Errors are as for Importer.Import.
func ReadUpload(up Upload, opts importer.Options) (name string, res *importer.Result, release func(), err error) {
	return Spool{}.ReadUpload(up, opts)
}

// ReadUpload is ReadUpload with the spool files in sp. A disk too full to
// hold the upload, or a spool folder that cannot be written, is a
// *SpaceError.
func (sp Spool) ReadUpload(up Upload, opts importer.Options) (name string, res *importer.Result, release func(), err error) {
	none := func() {}
	body := &readErr{r: up.Body}
	mediaType, params, _ := mime.ParseMediaType(up.ContentType)
	if mediaType != "multipart/form-data" {
		name := path.Base(up.Filename)
		if up.Filename == "" {
			name = "the upload"
			if mediaType == "text/markdown" {
				name = "entry.md"
			}
		}
		f, err := sp.create()
		if err != nil {
			return "", nil, none, err
		}
		release = func() {
			f.Close()
			os.Remove(f.Name())
		}
		if res, err = readBody(f, sp.writer(f), name, body, opts); err != nil {
			release()
			return "", nil, none, err
		}
		return name, res, release, nil
	}

	dir, err := sp.mkdir()
	if err != nil {
		return "", nil, none, err
	}
	name, res, closeFile, err := readForm(dir, sp, body, params["boundary"], opts)
	release = func() {
		closeFile()
		os.RemoveAll(dir)
	}
	if err != nil {
		release()
		return "", nil, none, err
	}
	return name, res, release, nil
}

// readBody copies a body that is the file itself to f, through w, and
// reads it, as ReadUpload does.
func readBody(f *os.File, w io.Writer, name string, body *readErr, opts importer.Options) (*importer.Result, error) {
	n, err := io.Copy(w, body)
	if err != nil {
		return nil, spaceError(body.cause(err))
	} else if n == 0 {
		return nil, &importer.Error{Message: EmptyUpload}
	}
	return importer.ReadAt(name, f, n, opts)
}

// readForm saves the files of a multipart form in dir and reads them, as
// ReadUpload does; release closes what the result still reads from dir.
func readForm(dir string, sp Spool, body *readErr, boundary string, opts importer.Options) (string, *importer.Result, func(), error) {
	none := func() {}
	var names []string
	mr := multipart.NewReader(body, boundary)
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		} else if err != nil {
			return "", nil, none, body.formError(err)
		}
		if part.FormName() != "file" || part.FileName() == "" {
			continue
		}
		name := path.Base(part.FileName())
		if !fs.ValidPath(name) {
			return "", nil, none, &importer.Error{Source: name, Message: "This is not a file name; give the file a name and send it again."}
		}
		if slices.Contains(names, name) {
			return "", nil, none, &importer.Error{Source: name, Message: "The form holds two files of this name; give each its own."}
		}
		if len(names) == MaxFormFiles {
			return "", nil, none, &importer.Error{Message: fmt.Sprintf("The form holds more than %d files; put them in a zip and upload that.", MaxFormFiles)}
		}
		if err := saveFile(filepath.Join(dir, name), sp, part); err != nil {
			if space := spaceError(err); space != err {
				return "", nil, none, space
			}
			return "", nil, none, body.formError(err)
		}
		names = append(names, name)
	}
	switch len(names) {
	case 0:
		return "", nil, none, &importer.Error{Message: "The form holds no file: send it in a field named file."}
	case 1:
		res, release, err := ReadPath(filepath.Join(dir, names[0]), opts)
		return names[0], res, release, err
	}
	res, err := importer.ReadFS(os.DirFS(dir), opts)
	return fmt.Sprintf("%d files", len(names)), res, none, err
}

// saveFile copies one file of a form to name, readable by Recur alone.
func saveFile(name string, sp Spool, r io.Reader) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(sp.writer(f), r); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// readErr remembers the error reading the body ended with, which the
// multipart reader reports without wrapping.
type readErr struct {
	r   io.Reader
	err error
}

func (b *readErr) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err != nil && err != io.EOF {
		b.err = err
	}
	return n, err
}

// cause is the error reading the body ended with, if any, else err.
func (b *readErr) cause(err error) error {
	if b.err != nil {
		return b.err
	}
	return err
}

// formError is the error of a form that cannot be read: when reading the
// body failed (over its size limit, or the client went away), that error
// itself; anything else is bad input.
func (b *readErr) formError(err error) error {
	if b.err != nil {
		return b.err
	}
	return &importer.Error{Message: "The multipart form cannot be read: " + err.Error() + "."}
}
