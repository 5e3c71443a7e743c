package importer

import (
	"errors"
	"fmt"
	"io"
	"math"
)

// The limits of one upload, all counted on the bytes actually read: a zip's
// headers may claim any size. Each bounds the memory an upload can make
// Recur spend, whatever it holds.
const (
	// MaxMarkdownBytes bounds one Markdown or text file, unpacked.
	MaxMarkdownBytes = 4 << 20
	// MaxJSONBytes bounds one JSON export file (Day One, jrnl or Recur),
	// unpacked. Every JSON export is read a piece at a time: Day One and
	// jrnl exports an entry at a time, a Recur export by the restore.
	MaxJSONBytes = 64 << 20
	// MaxEntryBytes bounds one entry of a Day One or jrnl export (and any
	// other value of its top level but the list of entries).
	MaxEntryBytes = 4 << 20
	// MaxEntries bounds the entries of one upload, after long ones are split.
	MaxEntries = 100000
	// MaxTextBytes bounds the text of all entries of one upload together.
	MaxTextBytes = 128 << 20

	maxFiles     = 100000   // files in a zip or folder
	maxDirectory = 8 << 20  // bytes of a zip's central directory, which is read whole
	maxPath      = 1024     // bytes of the path of a file in a zip or folder
	maxDepth     = 32       // folders above a file in a zip or folder
	readChunk    = 64 << 10 // the most one read hands a JSON decoder at once
	unlimited    = math.MaxInt64
)

// errValueTooLarge and errFileTooLarge stop a read that went past a limit.
var (
	errValueTooLarge = errors.New("value over the limit")
	errFileTooLarge  = errors.New("file over the limit")
)

// limitedReader counts the bytes read from r and fails a read that takes
// the file past max, or the value being decoded (from start on) past
// value. It hands out at most readChunk bytes at a time, so that what a
// JSON decoder reads ahead of its position stays small.
type limitedReader struct {
	r     io.Reader
	n     int64 // bytes read so far
	max   int64 // the most bytes of the file
	start int64 // where the value being decoded starts
	value int64 // the most bytes of one value; 0 for no limit
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if len(p) > readChunk {
		p = p[:readChunk]
	}
	n, err := l.r.Read(p)
	l.n += int64(n)
	switch {
	case l.n > l.max:
		return n, errFileTooLarge
	case l.value > 0 && l.n-l.start > l.value+readChunk:
		return n, errValueTooLarge
	}
	return n, err
}

// readAll reads r whole. hint is the size the file says it has, used only
// to size the buffer; r bounds what it reads.
func readAll(r io.Reader, hint int64) ([]byte, error) {
	buf := make([]byte, 0, min(max(hint, 512), MaxJSONBytes)+1)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		} else if err != nil {
			return nil, err
		}
	}
}

// errTooManyFiles is the error of a zip or folder with too many files.
func errTooManyFiles() *Error {
	return &Error{Message: fmt.Sprintf("This upload holds more than %d files; split it into smaller uploads.", maxFiles)}
}

// errFileSize is the error of a file over its limit.
func errFileSize(source, kind string, limit int64) *Error {
	return errorf(source, "larger than %s once unpacked, the limit for %s; split it into smaller files.", sizeText(limit), kind)
}

// directoryReader bounds the bytes zip.NewReader reads: it reads a zip's
// whole central directory into memory before anything can be checked.
type directoryReader struct {
	ra   io.ReaderAt
	n    int64
	done bool // the directory is read: files are read through it now
}

func (d *directoryReader) ReadAt(p []byte, off int64) (int, error) {
	if !d.done {
		if d.n += int64(len(p)); d.n > maxDirectory+128<<10 {
			return 0, errDirectoryTooLarge
		}
	}
	return d.ra.ReadAt(p, off)
}

var errDirectoryTooLarge = errors.New("zip directory over the limit")
