package backup

import (
	"context"
	"crypto/rand"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recur-journal/recur/internal/secretkey"
	"github.com/recur-journal/recur/migrations"
	"github.com/recur-journal/recur/store"
)

// backupsOver returns a backup job over a new migrated database, with a
// clock the test moves.
func backupsOver(t *testing.T, keep int, now *time.Time) *Scheduled {
	t.Helper()
	data := t.TempDir()
	s, err := store.Open(store.Options{Path: filepath.Join(data, "recur.db"), Migrations: migrations.FS})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if _, err := s.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(data, secretkey.File), secretkey.Text([]byte(rand.Text()+rand.Text())), 0o600); err != nil {
		t.Fatal(err)
	}
	return NewScheduled(Options{Dir: filepath.Join(t.TempDir(), "backups"), Interval: 24 * time.Hour, Keep: keep,
		DataDir: data, Store: s, Logger: slog.New(slog.DiscardHandler), Now: func() time.Time { return *now }})
}

// TestBackupRotation keeps the newest backups and removes older ones that
// Recur named, and nothing else in the folder.
func TestBackupRotation(t *testing.T) {
	now := time.Date(2026, 3, 1, 3, 0, 0, 0, time.UTC)
	b := backupsOver(t, 2, &now)
	os.MkdirAll(b.cfg.Dir, 0o700)
	mine := []string{"notes.txt", "recur-backup-manual.tar.gz", "recur-backup-20200101T000000.000Z.tar.gz.bak"}
	for _, name := range mine {
		os.WriteFile(filepath.Join(b.cfg.Dir, name), []byte("mine"), 0o600)
	}
	var written []string
	for range 4 {
		if err := b.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		names, _ := b.archives()
		written = append(written, names[len(names)-1])
		now = now.Add(25 * time.Hour)
	}
	if written = slices.Compact(written); len(written) != 4 {
		t.Fatalf("four runs an interval apart wrote %v, want four backups", written)
	}
	left, _ := os.ReadDir(b.cfg.Dir)
	var got []string
	for _, e := range left {
		got = append(got, e.Name())
	}
	want := append(slices.Clone(mine), written[2:]...)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("backup folder holds %v, want %v", got, want)
	}
}

// TestBackupDue backs up when the newest backup is an interval old, retries
// a failure an interval later, and skips a run while one is under way.
func TestBackupDue(t *testing.T) {
	now := time.Date(2026, 3, 1, 3, 0, 0, 0, time.UTC)
	b := backupsOver(t, 5, &now)
	count := func() int { names, _ := b.archives(); return len(names) }

	t.Run("SkipWhileRunning", func(t *testing.T) {
		b.running.Store(true)
		if err := b.Run(context.Background()); err != nil || count() != 0 {
			t.Errorf("a run while another runs: %v, %d backups, want it skipped", err, count())
		}
		b.running.Store(false)
	})
	t.Run("FirstRunBacksUp", func(t *testing.T) {
		if err := b.Run(context.Background()); err != nil || count() != 1 {
			t.Fatalf("first run: %v, %d backups, want 1", err, count())
		}
	})
	t.Run("NotBeforeInterval", func(t *testing.T) {
		now = now.Add(23 * time.Hour)
		if err := b.Run(context.Background()); err != nil || count() != 1 {
			t.Errorf("run before the interval: %v, %d backups, want still 1", err, count())
		}
	})
	t.Run("FailureRetriedNextInterval", func(t *testing.T) {
		now = now.Add(2 * time.Hour)
		dir := b.cfg.Dir
		blocker := filepath.Join(t.TempDir(), "file")
		os.WriteFile(blocker, nil, 0o600)
		b.cfg.Dir = filepath.Join(blocker, "backups") // a folder inside a file cannot be made
		if err := b.Run(context.Background()); err == nil || !strings.Contains(err.Error(), "next try in 24h") {
			t.Errorf("failing run: %v, want an error saying when it is retried", err)
		}
		b.cfg.Dir = dir
		now = now.Add(time.Hour)
		if err := b.Run(context.Background()); err != nil || count() != 1 {
			t.Errorf("run an hour after a failure: %v, %d backups, want no try yet", err, count())
		}
		now = now.Add(24 * time.Hour)
		if err := b.Run(context.Background()); err != nil || count() != 2 {
			t.Errorf("run an interval after the failure: %v, %d backups, want 2", err, count())
		}
	})
}
