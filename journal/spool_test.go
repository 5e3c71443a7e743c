package journal

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/recur-journal/recur/importer"
)

// fullDiskAfter stands in for a disk that fills up after room bytes: writes
// through it fail with ENOSPC, as the file system's would.
func fullDiskAfter(room int) func(io.Writer) io.Writer {
	return func(w io.Writer) io.Writer { return &fullDisk{w: w, room: room} }
}

type fullDisk struct {
	w    io.Writer
	room int
}

func (d *fullDisk) Write(p []byte) (int, error) {
	if len(p) > d.room {
		n, _ := d.w.Write(p[:d.room])
		d.room = 0
		return n, &os.PathError{Op: "write", Path: "spool", Err: syscall.ENOSPC}
	}
	d.room -= len(p)
	return d.w.Write(p)
}

// uploads are a body that is the file itself and a form, both larger than
// the room a full disk leaves.
func uploads(t *testing.T) map[string]func() Upload {
	text := strings.Repeat(entryMarkdown, 50)
	return map[string]func() Upload{
		"File": func() Upload { return Upload{ContentType: "text/markdown", Body: strings.NewReader(text)} },
		"Form": func() Upload {
			ct, body := form(t, map[string]string{"a.md": text, "b.md": text})
			return Upload{ContentType: ct, Body: body}
		},
	}
}

// An upload the disk has no room for is a *SpaceError with a sentence,
// not a server error or bad input, and nothing of it stays in the spool.
func TestSpoolfullDiskAfter(t *testing.T) {
	t.Parallel()
	for name, up := range uploads(t) {
		t.Run(name, func(t *testing.T) {
			sp := Spool{Dir: t.TempDir(), Writer: fullDiskAfter(100)}
			_, _, _, err := sp.ReadUpload(up(), importer.Options{MaxText: 10000})
			var space *SpaceError
			if !errors.As(err, &space) || !strings.Contains(space.Message, "disk is full") || !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("err = %v, want a *SpaceError saying the disk is full", err)
			}
			if left, _ := os.ReadDir(sp.Dir); len(left) > 0 {
				t.Errorf("left in the spool: %v", left)
			}
		})
	}
}

// Uploads are spooled in the spool's folder, so a temporary folder that
// cannot be written (a read-only /tmp) does not matter; the spool is
// empty again once the import is released.
func TestSpoolIgnoresTheTemporaryFolder(t *testing.T) {
	spools := t.TempDir() // made before TMPDIR points nowhere
	// Root may write a read-only folder; a missing one fails for everyone.
	t.Setenv("TMPDIR", filepath.Join(spools, "read-only"))
	if f, err := os.CreateTemp("", "x"); err == nil {
		f.Close()
		t.Fatal("the temporary folder can be written; the test proves nothing")
	}
	for name, up := range uploads(t) {
		t.Run(name, func(t *testing.T) {
			sp := Spool{Dir: filepath.Join(spools, name)}
			if err := os.Mkdir(sp.Dir, 0o700); err != nil {
				t.Fatal(err)
			}
			_, res, release, err := sp.ReadUpload(up(), importer.Options{MaxText: 10000})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Entries) == 0 {
				t.Error("no entries read")
			}
			if left, _ := os.ReadDir(sp.Dir); len(left) != 1 {
				t.Errorf("the spool holds %v while the import reads, want the upload", left)
			}
			release()
			if left, _ := os.ReadDir(sp.Dir); len(left) > 0 {
				t.Errorf("left in the spool after release: %v", left)
			}
		})
	}
}

// Clear removes what an import cut short left in the spool.
func TestSpoolClear(t *testing.T) {
	t.Parallel()
	sp := Spool{Dir: t.TempDir()}
	if err := os.MkdirAll(filepath.Join(sp.Dir, "recur-import-1", "x"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sp.Dir, "recur-import-2"), []byte("half"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := sp.Clear(); err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(sp.Dir); len(left) > 0 {
		t.Errorf("left after Clear: %v", left)
	}
}
