package journal

import (
	"archive/zip"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/recur-journal/recur/importer"
	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

// exportFile writes a Recur export of an account with n entries of about
// size bytes each to a file, and returns its name.
func exportFile(t *testing.T, st *store.Store, n, size int) string {
	t.Helper()
	ctx := context.Background()
	u := storetest.MustCreateUser(t, st, fmt.Sprintf("export%d@example.com", n))
	start := time.Date(2016, 1, 1, 8, 0, 0, 0, time.UTC)
	entries := make([]store.ImportEntry, n)
	for d := range entries {
		line := fmt.Sprintf("Day %d of the journal, and what happened in it. ", d)
		entries[d] = store.ImportEntry{OccurredAt: start.AddDate(0, 0, d), Source: fmt.Sprint("entry ", d+1),
			Text: strings.Repeat(line, size/len(line))}
	}
	if _, err := st.ImportCaptures(ctx, u.ID, "import", entries); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(t.TempDir(), "recur-export.json")
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := st.Export(ctx, u.ID, f); err != nil {
		t.Fatal(err)
	}
	return name
}

// allocated returns the bytes fn allocates on the heap.
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// sameDocument checks that the export a result opens is the file name.
func sameDocument(t *testing.T, res *importer.Result, name string) {
	t.Helper()
	sum := func(open func() (io.ReadCloser, error)) string {
		rc, err := open()
		if err != nil {
			t.Fatal(err)
		}
		defer rc.Close()
		h := sha256.New()
		if _, err := io.Copy(h, rc); err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("%x", h.Sum(nil))
	}
	if got, want := sum(res.OpenRecur), sum(func() (io.ReadCloser, error) { return os.Open(name) }); got != want {
		t.Errorf("the export read has sha256 %s, want the file's %s", got, want)
	}
}

// captureCount is how many captures the user has.
func captureCount(t *testing.T, st *store.Store, userID string) int {
	t.Helper()
	_, total, err := st.ListCaptures(context.Background(), userID, store.Page{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	return total
}

// A Recur export is read from where it lies while it is restored, never
// held in memory whole: reading a large one from a file or an upload
// allocates a small fraction of its size, and importing it still restores
// every entry.
func TestReadRecurExportStreams(t *testing.T) {
	t.Parallel()
	st := storetest.MustOpen(t)
	const entries = 2100
	name := exportFile(t, st, entries, 8000)
	info, err := os.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	size := info.Size()
	if size < 15<<20 {
		t.Fatalf("the export holds %d bytes, want about 16 MiB", size)
	}
	// Today a read whole allocates at least the document; a stream its
	// buffers, whatever the document's size.
	limit := uint64(size / 16)
	opts := importer.Options{MaxText: store.CaptureMaxLength}

	// open opens the export for an upload's body.
	open := func(t *testing.T) *os.File {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	for _, c := range []struct {
		name string
		read func(t *testing.T) (*importer.Result, func(), error)
	}{
		{"Path", func(t *testing.T) (*importer.Result, func(), error) { return ReadPath(name, opts) }},
		{"Upload", func(t *testing.T) (*importer.Result, func(), error) {
			up := Upload{ContentType: "application/json", Filename: "recur-export.json", Body: open(t)}
			_, res, release, err := ReadUpload(up, opts)
			return res, release, err
		}},
		{"Form", func(t *testing.T) (*importer.Result, func(), error) {
			f := open(t)
			pr, pw := io.Pipe()
			mw := multipart.NewWriter(pw)
			go func() {
				part, err := mw.CreateFormFile("file", "recur-export.json")
				if err == nil {
					_, err = io.Copy(part, f)
				}
				if err == nil {
					err = mw.Close()
				}
				pw.CloseWithError(err)
			}()
			_, res, release, err := ReadUpload(Upload{ContentType: mw.FormDataContentType(), Body: pr}, opts)
			return res, release, err
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var res *importer.Result
			var release func()
			var err error
			n := allocated(func() { res, release, err = c.read(t) })
			if err != nil {
				t.Fatal(err)
			}
			defer release()
			t.Logf("reading a %d MiB export allocated %d KiB", size>>20, n>>10)
			if n > limit {
				t.Errorf("reading a %d MiB export allocated %d KiB, want under %d KiB", size>>20, n>>10, limit>>10)
			}
			sameDocument(t, res, name)
		})
	}
	t.Run("Restore", func(t *testing.T) {
		res, release, err := ReadPath(name, opts)
		if err != nil {
			t.Fatal(err)
		}
		defer release()
		u := storetest.MustCreateUser(t, st, "restore@example.com")
		r, err := Import(context.Background(), st, u.ID, "recur-export.json", res)
		if err != nil {
			t.Fatal(err)
		}
		if got := captureCount(t, st, u.ID); r.Imported != entries || got != entries {
			t.Errorf("restored %d entries, %d captures; want %d", r.Imported, got, entries)
		}
	})
}

// A Recur export found over the upload's limit while it is restored fails
// the import with the sentence that names the limit, and nothing is
// written.
func TestImportRecurExportOverLimit(t *testing.T) {
	t.Parallel()
	st := storetest.MustOpen(t)
	export, err := os.ReadFile(exportFile(t, st, 20, 500))
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(t.TempDir(), "backup.zip")
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	w, err := zw.Create("recur-export.json")
	if err != nil {
		t.Fatal(err)
	}
	w.Write(export)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()

	// The zip says its size, under the limit for a JSON export: what
	// stops it is the upload's budget, counted as it is unpacked.
	opts := importer.Options{MaxBytes: int64(len(export)) / 2}
	res, release, err := ReadPath(name, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	u := storetest.MustCreateUser(t, st, "over@example.com")
	_, err = Import(context.Background(), st, u.ID, "backup.zip", res)
	var ie *importer.Error
	want := fmt.Sprintf("This upload holds more than %d bytes once unpacked; split it into smaller uploads.", opts.MaxBytes)
	if !errors.As(err, &ie) || err.Error() != want {
		t.Fatalf("err = %v; want the importer's %q", err, want)
	}
	if n := captureCount(t, st, u.ID); n != 0 {
		t.Errorf("%d captures written, want none", n)
	}
}

// The temporary files of an upload are readable by Recur alone, live as
// long as the import reads them, and are removed when it is released or
// fails.
func TestReadUploadTemporaryFiles(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	export := `{"format": "recur-export", "version": 1}`
	left := func(t *testing.T) []string {
		t.Helper()
		var names []string
		err := filepath.WalkDir(tmp, func(p string, d os.DirEntry, err error) error {
			if err != nil || p == tmp {
				return err
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			if mode := info.Mode().Perm(); (d.IsDir() && mode != 0o700) || (!d.IsDir() && mode != 0o600) {
				t.Errorf("%s has mode %v, want 0700 for a folder and 0600 for a file", p, mode)
			}
			names = append(names, p)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return names
	}
	for _, c := range []struct {
		name string
		up   func(t *testing.T) Upload
	}{
		{"File", func(*testing.T) Upload {
			return Upload{ContentType: "application/json", Body: strings.NewReader(export)}
		}},
		{"Form", func(t *testing.T) Upload {
			ct, body := form(t, map[string]string{"recur-export.json": export})
			return Upload{ContentType: ct, Body: body}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, res, release, err := ReadUpload(c.up(t), importer.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(left(t)) == 0 {
				t.Fatal("no temporary file holds the upload")
			}
			rc, err := res.OpenRecur()
			if err != nil {
				t.Fatal(err)
			}
			doc, err := io.ReadAll(rc)
			rc.Close()
			if err != nil || string(doc) != export {
				t.Errorf("read %q, %v; want the export from the temporary file", doc, err)
			}
			release()
			if names := left(t); len(names) > 0 {
				t.Errorf("left behind after release: %v", names)
			}
		})
	}
	t.Run("ErrUnreadable", func(t *testing.T) {
		ct, body := form(t, map[string]string{"a.json": `{"format": "recur-export"`, "b.json": `{"format": "recur-export"}`})
		for _, up := range []Upload{
			{ContentType: "application/json", Body: strings.NewReader("{broken")},
			{ContentType: ct, Body: body},
		} {
			if _, _, _, err := ReadUpload(up, importer.Options{}); err == nil {
				t.Fatalf("%s: read without an error", up.ContentType)
			}
			if names := left(t); len(names) > 0 {
				t.Errorf("%s: left behind after an error: %v", up.ContentType, names)
			}
		}
	})
}
