// Package tartest reads and writes gzip-compressed tar archives in tests:
// backups, and the archives of a release.
package tartest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"testing"
)

// Member is one file of an archive.
type Member struct {
	Name string
	Data []byte
}

// Read returns the files of the tar.gz archive at path, in order.
func Read(t testing.TB, path string) []Member {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	gz, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	var list []Member
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return list
		} else if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		list = append(list, Member{Name: h.Name, Data: b})
	}
}

// Write writes members as a tar.gz at path, each a plain file of mode 0600.
func Write(t testing.TB, path string, members []Member) {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, m := range members {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: m.Name, Mode: 0o600, Size: int64(len(m.Data))}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(m.Data); err != nil {
			t.Fatal(err)
		}
	}
	if err := errors.Join(tw.Close(), gz.Close()); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
}
