//go:build unix

package cli

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// withUmask sets the process umask for the test, so that a file whose mode
// is left to the umask shows up: 022 is the common default, under which
// SQLite's own files would be readable by everyone.
func withUmask(t *testing.T, mask int) {
	old := syscall.Umask(mask)
	t.Cleanup(func() { syscall.Umask(old) })
}

// TestFileModes runs the server, analyses a capture, backs up and exports,
// and checks that every file Recur made is 0600 and every folder 0700,
// including SQLite's -wal and -shm files: once as soon as the server runs
// (before another command could narrow them at its start), once at the end.
func TestFileModes(t *testing.T) {
	withUmask(t, 0o022)
	dir := filepath.Join(t.TempDir(), "data")
	out := t.TempDir()
	backup, export := filepath.Join(out, "backup.tar.gz"), filepath.Join(out, "journal.json")
	_, _, base := startServer(t, dir)
	assertPrivate(t, dir, "recur.db", "recur.db-wal", "recur.db-shm", "secret.key")

	analysedCapture(t, dir, base)
	if _, _, err := run(t, dir, "", "backup", backup); err != nil {
		t.Fatal(err)
	}
	if _, _, err := run(t, dir, "", "export", "--user", "me@example.com", "--output", export); err != nil {
		t.Fatal(err)
	}
	assertPrivate(t, dir, "recur.db", "recur.db-wal", "recur.db-shm", "secret.key")
	assertPrivate(t, out, "backup.tar.gz", "journal.json")
}

// assertPrivate checks that every file under root is 0600 and every folder
// below it 0700, and that the files named are among them.
func assertPrivate(t *testing.T, root string, names ...string) {
	t.Helper()
	seen := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == root {
			return err // the root may be the test's own folder
		}
		st, err := d.Info()
		if err != nil {
			return err
		}
		want := fs.FileMode(0o600)
		if d.IsDir() {
			want = 0o700
		}
		if got := st.Mode().Perm(); got != want {
			t.Errorf("%s is %04o, want %04o", path, got, want)
		}
		seen[filepath.Base(path)] = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(root); err == nil && filepath.Base(root) == "data" && st.Mode().Perm() != 0o700 {
		t.Errorf("the data folder is %04o, want 0700", st.Mode().Perm())
	}
	for _, name := range names {
		if !seen[name] {
			t.Errorf("%s was not there to check", name)
		}
	}
}

// TestDataFolderModes starts Recur on data folders an older version or a
// careless copy left open to others.
func TestDataFolderModes(t *testing.T) {
	withUmask(t, 0o022)
	t.Run("WarnsOpenFolder", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		_, stderr, err := run(t, dir, "", "migrate", "up")
		if err != nil {
			t.Fatal(err)
		}
		if want := "run: chmod 700 " + dir; strings.Count(stderr, want) != 1 {
			t.Errorf("start-up said %q, want one warning saying %q", stderr, want)
		}
		if st, _ := os.Stat(dir); st.Mode().Perm() != 0o755 {
			t.Errorf("the folder's mode was changed to %04o; its owner decides", st.Mode().Perm())
		}
	})
	t.Run("QuietWhenPrivate", func(t *testing.T) {
		_, stderr, err := run(t, filepath.Join(t.TempDir(), "data"), "", "migrate", "up")
		if err != nil || strings.Contains(stderr, "chmod") || strings.Contains(stderr, "made data files") {
			t.Errorf("start-up on a private folder said %q, %v", stderr, err)
		}
	})
	t.Run("TightensFiles", func(t *testing.T) {
		dir := migratedDir(t, filepath.Join(t.TempDir(), "data"))
		if _, _, err := run(t, dir, "", "user", "add", "me@example.com"); err != nil {
			t.Fatal(err)
		}
		files := []string{filepath.Join(dir, "recur.db"), filepath.Join(dir, "secret.key")}
		if err := os.WriteFile(files[1], []byte(strings.Repeat("ab", 32)+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if err := os.Chmod(f, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		_, stderr, err := run(t, dir, "", "migrate", "up")
		if err != nil {
			t.Fatal(err)
		}
		if strings.Count(stderr, "made data files readable by their owner alone") != 1 {
			t.Errorf("start-up said %q, want one line about the files it made private", stderr)
		}
		for _, f := range files {
			if st, _ := os.Stat(f); st.Mode().Perm() != 0o600 {
				t.Errorf("%s is %04o after start, want 0600", f, st.Mode().Perm())
			}
			if !strings.Contains(stderr, f) {
				t.Errorf("the line does not name %s: %q", f, stderr)
			}
		}
	})
}
