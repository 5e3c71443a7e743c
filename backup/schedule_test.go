package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"filippo.io/age"

	"github.com/recur-journal/recur/migrations"
	"github.com/recur-journal/recur/store"
)

// TestScheduledBackupRestore runs the backup job of a serving instance
// (plain, and encrypted to an age recipient) and restores what it wrote into
// a new data folder: every entry is there.
func TestScheduledBackupRestore(t *testing.T) {
	id, err := age.GenerateX25519Identity()
	if err != nil {
		t.Fatal(err)
	}
	other, _ := age.GenerateX25519Identity()
	keys := t.TempDir()
	idFile, otherFile := filepath.Join(keys, "key.txt"), filepath.Join(keys, "other.txt")
	os.WriteFile(idFile, []byte("# created by age-keygen\n"+id.String()+"\n"), 0o600)
	os.WriteFile(otherFile, []byte(other.String()+"\n"), 0o600)

	for _, c := range []struct {
		name      string
		recipient string
		suffix    string
	}{
		{name: "Plain", suffix: ".tar.gz"},
		{name: "Encrypted", recipient: id.Recipient().String(), suffix: ".tar.gz.age"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "data")
			backups := filepath.Join(t.TempDir(), "backups")
			m, _, base := startServer(t, dir, "RECUR_BACKUP_DIR="+backups, "RECUR_BACKUP_AGE_RECIPIENT="+c.recipient)
			client, _ := analysedCapture(t, dir, base)
			for _, text := range []string{"Second entry: a walk in the park.", "Third entry: I called my sister."} {
				status, body := client.do("POST", "/captures", `{"text":"`+text+`"}`)
				if status != 201 {
					t.Fatalf("POST /captures = %d %v", status, body)
				}
				client.waitProcessed(body["data"].(map[string]any)["id"].(string))
			}
			journal := exportDoc(t, dir)
			if got := len(journal["captures"].([]any)); got != 3 {
				t.Fatalf("the journal holds %d captures, want 3", got)
			}

			if m.ops.backups == nil {
				t.Fatal("[backup] dir is set, but no backup job was scheduled")
			}
			if err := m.ops.backups.run(context.Background()); err != nil {
				t.Fatalf("backup job: %v", err)
			}
			archives, _ := filepath.Glob(filepath.Join(backups, "recur-backup-*"))
			if len(archives) != 1 || !strings.HasSuffix(archives[0], c.suffix) {
				t.Fatalf("backup folder holds %v, want one archive ending %s", archives, c.suffix)
			}
			archive := archives[0]
			if st, err := os.Stat(archive); err != nil || st.Mode().Perm() != 0o600 {
				t.Errorf("archive mode = %v (%v), want 0600", st.Mode().Perm(), err)
			}
			if err := m.ops.backups.run(context.Background()); err != nil {
				t.Fatal(err)
			}
			if again, _ := filepath.Glob(filepath.Join(backups, "recur-backup-*")); len(again) != 1 {
				t.Errorf("a second run within the interval wrote another backup: %v", again)
			}
			if c.recipient != "" {
				if b := readFile(t, archive); !bytes.HasPrefix(b, []byte("age-encryption.org/v1\n")) || bytes.Contains(b, []byte("SQLite format 3")) {
					t.Errorf("the archive is not age-encrypted")
				}
				fresh := filepath.Join(t.TempDir(), "fresh")
				if _, _, err := run(t, fresh, "", "restore", archive); err == nil || !strings.Contains(err.Error(), "--identity FILE") {
					t.Errorf("restore of an encrypted archive without --identity: %v, want it to ask for --identity FILE", err)
				}
				if _, _, err := run(t, fresh, "", "restore", "--identity", otherFile, archive); err == nil || !strings.Contains(err.Error(), "opens the archive") {
					t.Errorf("restore with another key: %v, want a refusal naming the key file", err)
				}
				if _, err := os.Stat(fresh); !os.IsNotExist(err) {
					t.Errorf("a refused restore left the data folder behind")
				}
			}

			restored := filepath.Join(t.TempDir(), "restored")
			args := []string{"restore", archive}
			if c.recipient != "" {
				args = append(args, "--identity", idFile)
			}
			if _, _, err := run(t, restored, "", args...); err != nil {
				t.Fatalf("restore: %v", err)
			}
			if got := exportDoc(t, restored); !reflect.DeepEqual(got, journal) {
				t.Errorf("restored journal differs:\n%v\nwant\n%v", got, journal)
			}
			if got, want := readFile(t, filepath.Join(restored, "secret.key")), readFile(t, filepath.Join(dir, "secret.key")); !bytes.Equal(got, want) {
				t.Errorf("restored secret.key differs from the original")
			}
		})
	}
}

// backupsOver returns a backup job over a new migrated database, with a
// clock the test moves.
func backupsOver(t *testing.T, keep int, now *time.Time) *scheduledBackups {
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
	if err := os.WriteFile(filepath.Join(data, secretFile), secretText([]byte(rand.Text()+rand.Text())), 0o600); err != nil {
		t.Fatal(err)
	}
	return &scheduledBackups{cfg: BackupConfig{Dir: filepath.Join(t.TempDir(), "backups"), Interval: Duration{24 * time.Hour}, Keep: keep},
		dataDir: data, store: s, log: slog.New(slog.DiscardHandler), now: func() time.Time { return *now }}
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
		if err := b.run(context.Background()); err != nil {
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
		if err := b.run(context.Background()); err != nil || count() != 0 {
			t.Errorf("a run while another runs: %v, %d backups, want it skipped", err, count())
		}
		b.running.Store(false)
	})
	t.Run("FirstRunBacksUp", func(t *testing.T) {
		if err := b.run(context.Background()); err != nil || count() != 1 {
			t.Fatalf("first run: %v, %d backups, want 1", err, count())
		}
	})
	t.Run("NotBeforeInterval", func(t *testing.T) {
		now = now.Add(23 * time.Hour)
		if err := b.run(context.Background()); err != nil || count() != 1 {
			t.Errorf("run before the interval: %v, %d backups, want still 1", err, count())
		}
	})
	t.Run("FailureRetriedNextInterval", func(t *testing.T) {
		now = now.Add(2 * time.Hour)
		dir := b.cfg.Dir
		blocker := filepath.Join(t.TempDir(), "file")
		os.WriteFile(blocker, nil, 0o600)
		b.cfg.Dir = filepath.Join(blocker, "backups") // a folder inside a file cannot be made
		if err := b.run(context.Background()); err == nil || !strings.Contains(err.Error(), "next try in 24h") {
			t.Errorf("failing run: %v, want an error saying when it is retried", err)
		}
		b.cfg.Dir = dir
		now = now.Add(time.Hour)
		if err := b.run(context.Background()); err != nil || count() != 1 {
			t.Errorf("run an hour after a failure: %v, %d backups, want no try yet", err, count())
		}
		now = now.Add(24 * time.Hour)
		if err := b.run(context.Background()); err != nil || count() != 2 {
			t.Errorf("run an interval after the failure: %v, %d backups, want 2", err, count())
		}
	})
}

// TestBackupConfig refuses [backup] and [metrics] values that cannot work,
// naming the key.
func TestBackupConfig(t *testing.T) {
	id, _ := age.GenerateX25519Identity()
	for _, c := range []struct {
		env  string
		want string // empty: accepted
	}{
		{env: "RECUR_BACKUP_AGE_RECIPIENT=" + id.Recipient().String()},
		{env: "RECUR_BACKUP_AGE_RECIPIENT=age1notakey", want: `backup.age_recipient: "age1notakey" is not an age public key`},
		{env: "RECUR_BACKUP_AGE_RECIPIENT=" + id.String(), want: "backup.age_recipient"},
		{env: "RECUR_BACKUP_INTERVAL=30s", want: "backup.interval: must be at least 1m"},
		{env: "RECUR_BACKUP_KEEP=0", want: "backup.keep: must be at least 1"},
		{env: "RECUR_METRICS_ADDR=9090", want: "metrics.addr"},
		{env: "RECUR_METRICS_ADDR=127.0.0.1:9090"},
	} {
		_, err := LoadConfig("", false, []string{c.env})
		if c.want == "" && err != nil {
			t.Errorf("%s: %v, want it accepted", c.env, err)
		} else if c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: %v, want an error with %q", c.env, err, c.want)
		}
	}
}
