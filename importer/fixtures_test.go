package importer

import (
	"archive/zip"
	"bytes"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// update makes the zips under testdata again from their sources:
//
//	go test ./importer -run TestFixtures -update
var update = flag.Bool("update", false, "write the zip fixtures under testdata again")

// zipFile is one file of a zip a test makes.
type zipFile struct {
	Name string
	Body string
}

// makeZip returns a zip of files, stamped with a fixed time so that it is
// the same on every run.
func makeZip(tb testing.TB, files ...zipFile) []byte {
	tb.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for _, f := range files {
		h := &zip.FileHeader{Name: f.Name, Method: zip.Deflate, Modified: time.Date(2024, 3, 6, 9, 0, 0, 0, time.UTC)}
		fw, err := w.CreateHeader(h)
		if err != nil {
			tb.Fatal(err)
		}
		if _, err := fw.Write([]byte(f.Body)); err != nil {
			tb.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// folderFiles lists the files under dir, hidden ones too, for a zip.
func folderFiles(tb testing.TB, dir string) []zipFile {
	tb.Helper()
	var files []zipFile
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files = append(files, zipFile{filepath.ToSlash(rel), string(body)})
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return files
}

// tinyJPEG is a few bytes that start and end like a JPEG, as the photo of
// the Day One fixture.
const tinyJPEG = "\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00\xff\xd9"

// TestFixtures checks that the zip fixtures hold what their sources hold,
// and writes them again with -update.
func TestFixtures(t *testing.T) {
	t.Parallel()
	journal, err := os.ReadFile("testdata/dayone/Journal.json")
	if err != nil {
		t.Fatal(err)
	}
	fixtures := map[string][]zipFile{
		// Like a Day One export: one JSON per journal at the top, media in
		// folders named by kind, each file named by its md5.
		"dayone.zip": {
			{"Journal.json", string(journal)},
			{"photos/d41d8cd98f00b204e9800998ecf8427e.jpeg", tinyJPEG},
		},
		"markdown.zip": folderFiles(t, "testdata/markdown"),
		"markdown-undated.zip": {
			{"2024-04-01.md", "Dated by its name.\n"},
			{"notes/ideas.md", "# Ideas\n\nNothing here says when it was written.\n"},
		},
	}
	for name, files := range fixtures {
		want := makeZip(t, files...)
		file := filepath.Join("testdata", name)
		if *update {
			if err := os.WriteFile(file, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(file)
		if err != nil {
			t.Fatalf("%v (make it with go test ./importer -run TestFixtures -update)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from its sources; make it again with go test ./importer -run TestFixtures -update", file)
		}
	}
}
