package importer

import (
	"archive/zip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
)

// file is one file of an upload, listed before anything is read. It can
// be opened again: a JSON file is read once to tell what it is and once
// more to read its entries.
type file struct {
	path string
	size int64 // the size it claims, -1 when unknown; only what is read counts
	open func() (io.ReadCloser, error)
}

// readFS reads a folder, or any fs.FS, walking it in lexical order.
func (r *reader) readFS(fsys fs.FS) (*Result, error) {
	var files []file
	count := 0
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil && p == "." {
			return &Error{Message: fmt.Sprintf("The folder cannot be read (%v); check that it exists and may be read.", unwrapPath(err))}
		} else if err != nil {
			return errorf(p, "cannot be read (%v); upload the files again.", unwrapPath(err))
		}
		if p == "." {
			return nil
		}
		if count++; count > maxFiles {
			return errTooManyFiles()
		}
		if err := checkPath(p); err != nil {
			return err
		}
		if isHidden(d.Name()) {
			r.res.Skipped++
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		switch {
		case d.IsDir():
		case !d.Type().IsRegular(): // links are never followed
			r.res.Skipped++
		default:
			size := int64(-1)
			if info, err := d.Info(); err == nil {
				size = info.Size()
			}
			files = append(files, file{cleanName(p), size, func() (io.ReadCloser, error) { return fsys.Open(p) }})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return r.readFiles(files)
}

// readZip reads the files of a zip. It lists them itself rather than
// through the zip's fs.FS view, which cannot walk the backslashed names
// some Windows tools write. A name that reaches outside the zip
// ("../x.md", "/x.md") is skipped.
func (r *reader) readZip(zr *zip.Reader) (*Result, error) {
	var files []file
	hidden := map[string]bool{}
	for _, f := range zr.File {
		name := cleanName(f.Name)
		if strings.HasSuffix(name, "/") {
			continue // a folder
		}
		if !fs.ValidPath(name) {
			r.res.Skipped++
			continue
		}
		if err := checkPath(name); err != nil {
			return nil, err
		}
		// Count a hidden folder once, as a walk of the unpacked folder does.
		if dir, ok := hiddenPrefix(name); ok {
			if !hidden[dir] {
				hidden[dir] = true
				r.res.Skipped++
			}
			continue
		}
		if !f.Mode().IsRegular() {
			r.res.Skipped++
			continue
		}
		files = append(files, file{name, int64(min(f.UncompressedSize64, 1<<62)), f.Open})
	}
	// The order of a walk of the unpacked folder: a folder's files before
	// the names it is a prefix of.
	key := func(f file) string { return strings.ReplaceAll(f.path, "/", "\x00") }
	slices.SortStableFunc(files, func(a, b file) int { return strings.Compare(key(a), key(b)) })
	return r.readFiles(files)
}

// isHidden reports whether a file or folder name is one left out unread:
// hidden (".obsidian", ".DS_Store") or macOS's zip leftovers.
func isHidden(name string) bool {
	return strings.HasPrefix(name, ".") || name == "__MACOSX"
}

// hiddenPrefix returns the part of p up to its first hidden name.
func hiddenPrefix(p string) (string, bool) {
	parts := strings.Split(p, "/")
	for i, part := range parts {
		if isHidden(part) {
			return strings.Join(parts[:i+1], "/"), true
		}
	}
	return "", false
}

// readFiles reads the files of a zip or folder: JSON files first, to tell
// what they are, then, when none is a journal, the Markdown files. Files of
// other kinds are counted as skipped and never read.
func (r *reader) readFiles(files []file) (*Result, error) {
	var jsonFiles, markdownFiles []file
	for _, f := range files {
		switch {
		case strings.EqualFold(path.Ext(f.path), ".json"):
			jsonFiles = append(jsonFiles, f)
		case isMarkdownName(f.path):
			markdownFiles = append(markdownFiles, f)
		default: // photos, videos, PDFs and the like
			r.res.Skipped++
		}
	}

	var dayOne, jrnl, recur []file
	for _, f := range jsonFiles {
		kind, err := r.classify(f)
		if err != nil {
			return nil, err
		}
		switch kind {
		case DayOne:
			dayOne = append(dayOne, f)
		case JRNL:
			jrnl = append(jrnl, f)
		case Recur:
			recur = append(recur, f)
		default:
			r.res.Skipped++
		}
	}

	switch {
	case len(recur) > 0:
		if len(recur) > 1 || len(dayOne)+len(jrnl) > 0 {
			return nil, &Error{Message: "This upload holds a Recur export beside other journal files; upload the Recur export on its own."}
		}
		r.res.Skipped += len(markdownFiles)
		return r.readRecur(recur[0])
	case len(dayOne) > 0 && len(jrnl) > 0:
		return nil, &Error{Message: "This upload holds both Day One and jrnl exports; upload them one at a time."}
	case len(dayOne) > 0:
		r.res.Format = DayOne
		r.res.Skipped += len(markdownFiles)
		for _, f := range dayOne {
			if err := r.readDayOne(f); err != nil {
				return nil, err
			}
		}
	case len(jrnl) > 0:
		r.res.Format = JRNL
		r.res.Skipped += len(markdownFiles)
		for _, f := range jrnl {
			if err := r.readJRNL(f); err != nil {
				return nil, err
			}
		}
	default:
		r.res.Format = Markdown
		for _, f := range markdownFiles {
			if err := r.readMarkdown(f); err != nil {
				return nil, err
			}
		}
	}
	return r.finish()
}

// readRecur hands a Recur export on untouched, as an opener rather than its
// bytes: the restore reads it from where it lies, a record at a time. A file
// that says it is over the limit (Options.MaxRecurBytes) is refused now; one
// found over it while the restore reads it fails that read with the same
// *Error.
func (r *reader) readRecur(f file) (*Result, error) {
	over := errorf(f.path, "larger than %s once unpacked, the limit for a Recur export sent as an upload; "+
		"run recur import on the server instead, which takes an export of any size.", sizeText(r.recur))
	if f.size > r.recur {
		return nil, over
	}
	return &Result{Format: Recur, OpenRecur: r.opener(f, r.recur, over), Skipped: r.res.Skipped}, nil
}

// readFile reads one file whole, within limit, the most a file of its kind
// may hold, and what is left of the budget of the upload.
func (r *reader) readFile(f file, limit int64, kind string) ([]byte, error) {
	if f.size > limit {
		return nil, errFileSize(f.path, kind, limit)
	}
	rc, err := r.opener(f, limit, errFileSize(f.path, kind, limit))()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	data, err := readAll(rc, f.size)
	if err != nil {
		return nil, err
	}
	r.budget -= int64(len(data))
	return data, nil
}

// opener returns a function that opens f and counts its bytes as they are
// unpacked against limit, the most a file of its kind may hold (over is the
// error of a file past it), and against what is left of the budget of the
// upload now, so that a zip bomb stops at whichever comes first. Every
// error it or its reads return is an *Error.
func (r *reader) opener(f file, limit int64, over *Error) func() (io.ReadCloser, error) {
	max := limit
	switch {
	case limit == unlimited: // the owner's own file, on their command: not an upload
	case r.budget < limit:
		over, max = errTotalSize(r.limit), r.budget
	}
	return func() (io.ReadCloser, error) {
		rc, err := f.open()
		if err != nil {
			return nil, errorf(f.path, "cannot be read (%v); upload the files again.", unwrapPath(err))
		}
		return &countedFile{rc: rc, lr: limitedReader{r: rc, max: max}, path: f.path, over: over}, nil
	}
}

// countedFile reads a file of an upload within its limit, and turns what
// stops a read into the *Error that says why.
type countedFile struct {
	rc   io.ReadCloser
	lr   limitedReader
	path string
	over *Error // the error of a file past its limit
}

func (c *countedFile) Read(p []byte) (int, error) {
	n, err := c.lr.Read(p)
	switch {
	case err == nil || err == io.EOF:
		return n, err
	case errors.Is(err, errFileTooLarge):
		return n, c.over
	}
	return n, errorf(c.path, "cannot be read (%v); make the zip again and upload it.", unwrapPath(err))
}

func (c *countedFile) Close() error { return c.rc.Close() }

// errTotalSize is the error of an upload over its budget.
func errTotalSize(limit int64) *Error {
	return &Error{Message: fmt.Sprintf("This upload holds more than %s once unpacked; split it into smaller uploads.", sizeText(limit))}
}

// checkPath refuses a path in a zip or folder that is too long or deep.
func checkPath(p string) error {
	if len(p) > maxPath || strings.Count(p, "/") > maxDepth {
		short := p
		if len(short) > 80 {
			short = short[:80] + "…"
		}
		return errorf(short, "the path is longer than %d bytes or deeper than %d folders; move the file up and upload it again.", maxPath, maxDepth)
	}
	return nil
}

// sizeText says a number of bytes for people.
func sizeText(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// unwrapPath drops the operation and path an *fs.PathError repeats, since
// the message names the file already.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
