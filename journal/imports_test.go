package journal

import (
	"bytes"
	"context"
	"errors"
	"io"
	"mime/multipart"
	"strings"
	"testing"

	"github.com/recur-journal/recur/importer"
	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

const entryMarkdown = "---\ndate: 2025-04-02 09:30\n---\nA walk by the river before work.\n"

// form builds a multipart body with one file field per name.
func form(t *testing.T, files map[string]string) (string, io.Reader) {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for name, text := range files {
		f, err := w.CreateFormFile("file", name)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(f, text)
	}
	w.Close()
	return w.FormDataContentType(), &buf
}

// An upload is read as the file itself or as a form, and what cannot be
// read is an *importer.Error with a sentence, never an entry.
func TestReadUpload(t *testing.T) {
	t.Parallel()
	opts := importer.Options{MaxText: store.CaptureMaxLength}
	t.Run("File", func(t *testing.T) {
		name, res, release, err := ReadUpload(Upload{ContentType: "text/markdown", Body: strings.NewReader(entryMarkdown)}, opts)
		if err != nil {
			t.Fatal(err)
		}
		defer release()
		if name != "entry.md" || len(res.Entries) != 1 || !strings.Contains(res.Entries[0].Text, "river") {
			t.Errorf("name %q, entries %+v", name, res.Entries)
		}
	})
	t.Run("Form", func(t *testing.T) {
		ct, body := form(t, map[string]string{"a.md": entryMarkdown, "b.md": strings.Replace(entryMarkdown, "04-02", "04-03", 1)})
		name, res, release, err := ReadUpload(Upload{ContentType: ct, Body: body}, opts)
		if err != nil {
			t.Fatal(err)
		}
		defer release()
		if name != "2 files" || len(res.Entries) != 2 {
			t.Errorf("name %q, %d entries", name, len(res.Entries))
		}
	})
	t.Run("ErrUnreadable", func(t *testing.T) {
		ct, _ := form(t, nil)
		for name, up := range map[string]Upload{
			"Empty":      {ContentType: "application/json", Body: strings.NewReader("")},
			"NoFile":     {ContentType: ct, Body: strings.NewReader("--" + strings.TrimPrefix(ct, "multipart/form-data; boundary=") + "--\r\n")},
			"BrokenForm": {ContentType: "multipart/form-data; boundary=x", Body: strings.NewReader("not a form")},
		} {
			_, _, _, err := ReadUpload(up, opts)
			var ie *importer.Error
			if !errors.As(err, &ie) || ie.Message == "" {
				t.Errorf("%s: err = %v, want an importer error", name, err)
			}
		}
	})
	t.Run("ErrBody", func(t *testing.T) {
		// A body that fails to read (over its limit, a client gone) is
		// that failure, not bad input.
		cut := errors.New("body cut short")
		ct, body := form(t, map[string]string{"a.md": entryMarkdown})
		_, _, _, err := ReadUpload(Upload{ContentType: ct, Body: io.MultiReader(io.LimitReader(body, 40), errReader{cut})}, opts)
		if !errors.Is(err, cut) {
			t.Errorf("err = %v, want the body's own error", err)
		}
	})
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// An Importer reads one upload per account at a time and a few in all;
// beyond either it says which, and a slot comes back when its import ends.
func TestImporterSlots(t *testing.T) {
	t.Parallel()
	st := storetest.MustOpen(t)
	im := NewImporter(st, 2)
	releaseA, err := im.acquire("a")
	if err != nil {
		t.Fatal(err)
	}
	var busy *BusyError
	if _, err := im.acquire("a"); !errors.As(err, &busy) || !strings.Contains(busy.Message, "of yours") || busy.RetryAfter <= 0 {
		t.Errorf("second import of one account: err = %v", err)
	}
	releaseB, err := im.acquire("b")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := im.acquire("c"); !errors.As(err, &busy) || !strings.Contains(busy.Message, "2 imports already") {
		t.Errorf("third import in all: err = %v", err)
	}
	releaseA()
	releaseB()
	u := storetest.MustCreateUser(t, st, "imports@example.com")
	r, err := im.Import(context.Background(), u.ID, Upload{ContentType: "text/markdown", Body: strings.NewReader(entryMarkdown)})
	if err != nil {
		t.Fatal(err)
	}
	if r.Imported != 1 || r.Batch == nil || r.Batch.Total != 1 {
		t.Errorf("imported %d, batch %+v", r.Imported, r.Batch)
	}
	if _, err := im.acquire(u.ID); err != nil {
		t.Errorf("the slot of a finished import was kept: %v", err)
	}
}
