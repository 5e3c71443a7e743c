//go:build unix

package store_test

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

// TestPrivateFiles checks that the database, the -wal and -shm files SQLite
// makes beside it, and a backup are readable by their owner alone, under the
// common umask 022 that would leave SQLite's own files readable by everyone.
func TestPrivateFiles(t *testing.T) {
	t.Parallel()
	old := syscall.Umask(0o022)
	t.Cleanup(func() { syscall.Umask(old) })
	ctx := context.Background()

	t.Run("NewDatabase", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "recur.db")
		s := storetest.MustOpenAt(t, path, nil)
		storetest.MustCreateUser(t, s, "a@example.com")
		backup := filepath.Join(t.TempDir(), "copy.db")
		if err := s.Backup(ctx, backup); err != nil {
			t.Fatal(err)
		}
		for _, p := range append(store.DatabaseFiles(path), backup) {
			assertMode(t, p, 0o600)
		}
	})
	t.Run("OpenDatabase", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "recur.db")
		s := storetest.MustOpenAt(t, path, nil)
		s.Close()
		if err := os.Chmod(path, 0o644); err != nil {
			t.Fatal(err)
		}
		s = storetest.MustOpenAt(t, path, nil)
		storetest.MustCreateUser(t, s, "a@example.com")
		for _, p := range store.DatabaseFiles(path) {
			assertMode(t, p, 0o600)
		}
	})
	t.Run("MakePrivate", func(t *testing.T) {
		dir := t.TempDir()
		open, private := filepath.Join(dir, "open"), filepath.Join(dir, "private")
		os.WriteFile(open, nil, 0o664)
		os.WriteFile(private, nil, 0o600)
		changed, err := store.MakePrivate(open, private, filepath.Join(dir, "absent"))
		if err != nil {
			t.Fatal(err)
		}
		if len(changed) != 1 || changed[0] != open {
			t.Errorf("changed = %v, want only %s", changed, open)
		}
		assertMode(t, open, 0o600)
	})
}

func assertMode(t *testing.T, path string, want os.FileMode) {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := st.Mode().Perm(); got != want {
		t.Errorf("%s is %04o, want %04o", filepath.Base(path), got, want)
	}
}
